/**
 * The snapshot key through the real CLI: `snapshot` seals with it, `verify`
 * and `rebuild` check sealed snapshots with it; without it a sealed snapshot
 * is reported as sealed but unverified (not as "not JSON"), and with another
 * key it is skipped with a reason that says so.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteLog } from '@agentstate/sqlite';
import { tempDir } from './helpers.js';
import { cli, failAll, fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const hmacKey = tmp.path('hmac.key');
const otherKey = tmp.path('other.key');
const privatePem = tmp.path('ed25519.pem');
const publicPem = tmp.path('ed25519.pub.pem');
/** A demo database without snapshots, copied for each case (18 events). */
const demo = tmp.path('demo.db');

/** A fresh copy of the demo database. */
function demoCopy(name: string): string {
  const path = tmp.path(name);
  copyFileSync(demo, path);
  return path;
}

beforeAll(() => {
  ok(['demo', '--db', demo]);
  writeFileSync(hmacKey, `${randomBytes(32).toString('hex')}\n`);
  writeFileSync(otherKey, randomBytes(32));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileSync(privatePem, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicPem, publicKey.export({ type: 'spki', format: 'pem' }));
});

describe('a snapshot sealed with an HMAC key', () => {
  const db = tmp.path('hmac.db');

  beforeAll(() => {
    copyFileSync(demo, db);
    expect(okJson(['snapshot', '--db', db, '--snapshot-key', hmacKey])).toMatchObject({ seq: 18, sealedWith: 'hmac-sha256' });
  });

  it('is verified with the key', () => {
    expect(okJson(['verify', '--db', db, '--snapshot-key', hmacKey])).toMatchObject({
      ok: true,
      storedSnapshot: { seq: 18, matches: true, codec: 'hmac-sha256' },
      skippedSnapshots: [],
    });
    expect(ok(['verify', '--db', db, '--snapshot-key', hmacKey])).toContain('stored snapshot at seq 18 (sealed with hmac-sha256, verified): matches the log');
    expect(okJson(['rebuild', '--db', db], { env: { AGENTSTATE_SNAPSHOT_KEY: hmacKey } })).toMatchObject({ snapshotSeq: 18, skipped: [] });
  });

  it('is reported as sealed but unverifiable without the key, not as damaged', () => {
    const report = okJson(['verify', '--db', db]);
    expect(report).toMatchObject({ ok: true, storedSnapshot: null });
    expect(report.skippedSnapshots).toEqual([
      { seq: 18, reason: 'sealed with hmac-sha256, and cannot be verified without its key', damaged: false, sealedWith: 'hmac-sha256' },
    ]);
    const text = ok(['verify', '--db', db]);
    expect(text).not.toContain('not JSON');
    expect(text).toContain(
      'stored snapshot at seq 18 skipped: sealed with hmac-sha256, and cannot be verified without its key (give its key with --snapshot-key',
    );
  });

  it('fails verification under another key, and is skipped by rebuild with a clear reason', () => {
    const reason = expect.stringContaining('HMAC mismatch: sealed with another key, or changed since');
    const verified = cli(['verify', '--json', '--db', db, '--snapshot-key', otherKey]);
    expect(verified.code).toBe(2);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: false,
      differences: [],
      storedSnapshot: null,
      skippedSnapshots: [{ seq: 18, reason, damaged: true }],
    });
    expect(verified.stderr).toContain('the stored snapshot at seq 18 is damaged: HMAC mismatch: sealed with another key');
    expect(okJson(['rebuild', '--db', db, '--snapshot-key', otherKey])).toMatchObject({ seq: 18, snapshotSeq: 0, events: 18, skipped: [{ seq: 18, reason }] });
    expect(okJson(['verify', '--db', db, '--snapshot-key', privatePem]).skippedSnapshots).toEqual([
      { seq: 18, reason: 'sealed with hmac-sha256, not ed25519', damaged: false },
    ]);
  });

  it('makes an unsealed snapshot untrusted once a key is given', () => {
    const plain = demoCopy('plain.db');
    expect(okJson(['snapshot', '--db', plain])).toMatchObject({ seq: 18, sealedWith: null });
    const skipped = okJson(['rebuild', '--db', plain, '--snapshot-key', hmacKey]).skipped;
    expect(skipped).toEqual([{ seq: 18, reason: 'not sealed, but snapshots must be sealed with hmac-sha256 here', damaged: false }]);
  });
});

describe('a snapshot signed with an Ed25519 key', () => {
  const db = tmp.path('ed25519.db');

  beforeAll(() => {
    copyFileSync(demo, db);
    expect(okJson(['snapshot', '--db', db, '--snapshot-key', privatePem])).toMatchObject({ seq: 18, sealedWith: 'ed25519' });
  });

  it('is verified with the private or the public key alone', () => {
    expect(okJson(['verify', '--db', db, '--snapshot-key', publicPem]).storedSnapshot).toEqual({ seq: 18, matches: true, codec: 'ed25519' });
    expect(okJson(['rebuild', '--db', db, '--snapshot-key', privatePem])).toMatchObject({ snapshotSeq: 18, skipped: [] });
    const other = tmp.path('other.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    expect(okJson(['rebuild', '--db', db, '--snapshot-key', other]).skipped).toEqual([
      { seq: 18, reason: expect.stringContaining('Ed25519 signature mismatch: signed with another key'), damaged: true },
    ]);
    expect(okJson(['verify', '--db', db]).skippedSnapshots).toEqual([
      { seq: 18, reason: expect.stringContaining('sealed with ed25519'), damaged: false, sealedWith: 'ed25519' },
    ]);
  });

  it('cannot be sealed with the public key', () => {
    expect(fails(1, ['snapshot', '--db', db, '--snapshot-key', publicPem])).toMatch(
      /is an Ed25519 public key: it verifies snapshots, but sealing one needs the private key/,
    );
  });
});

describe('a snapshot key that cannot be used', () => {
  it('is refused with exit 1 and a message naming the file', async () => {
    const short = tmp.path('short.key');
    writeFileSync(short, 'secret\n');
    const rsa = tmp.path('rsa.pem');
    writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const db = demoCopy('keys.db');
    const broken = tmp.path('broken.pem');
    writeFileSync(broken, '-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n');
    const lines = await failAll(1, [
      ['snapshot', '--db', db, '--snapshot-key', short],
      ['verify', '--db', db, '--snapshot-key', rsa],
      ['rebuild', '--db', db, '--snapshot-key', broken],
    ]);
    expect(lines[0]).toContain(`the snapshot key ${short} holds 6 bytes; an HMAC secret needs at least 16`);
    expect(lines[1]).toContain('is a rsa key; snapshots are signed with Ed25519 keys only');
    expect(lines[2]).toContain(`the snapshot key ${broken} is not a readable PEM key`);
    expect(fails(1, ['rebuild', '--db', db], { env: { AGENTSTATE_SNAPSHOT_KEY: tmp.path('missing.key') } })).toContain('cannot read the snapshot key');
    expect(cli(['snapshot', '--help']).stdout).toContain('--snapshot-key <file>');
  });
});

describe('an imported database', () => {
  it('is a new store: it has its own identity and none of the exported database snapshots', async () => {
    const source = demoCopy('exported.db');
    ok(['snapshot', '--db', source]);
    const exported = tmp.path('export.jsonl');
    ok(['export', '--db', source, '--out', exported]);
    const imported = tmp.path('imported.db');
    ok(['import', exported, '--db', imported]);
    const identities: string[] = [];
    for (const path of [source, imported]) {
      const log = openSqliteLog(path);
      identities.push(await log.identity());
      await log.close();
    }
    expect(identities[1]).not.toBe(identities[0]);
    expect(okJson(['stats', '--db', imported]).lastSnapshot).toBeNull();
  });
});
