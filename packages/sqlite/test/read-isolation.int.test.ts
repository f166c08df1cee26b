/**
 * Readers see only committed writes, under a real failing COMMIT: a child
 * process with a file-size limit (`ulimit -f`; Node ignores SIGXFSZ, so the
 * write gets EFBIG) appends turns in concurrent rounds, which the engine
 * runs as group commits, while readers poll the transcript, until a
 * COMMIT meets the limit. No reader may ever have returned a turn that is
 * not in the file afterwards, and the file holds exactly the acknowledged
 * turns (docs/contract.md §4, "Group commit").
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { runUnderFileLimit, tempDir } from './helpers.js';

const ENTRY = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** The child: rounds of 16 concurrent appends under 3 polling readers, until a round has a failure; prints what it saw. */
const CHILD = `
import { openSqlite } from ${JSON.stringify(ENTRY)};
const db = await openSqlite(process.argv[2]);
const session = await db.sessions.create({ title: 'isolation' });
process.stdout.write('session ' + session.id + '\\n');
const acked = [];
const seen = new Set();
let running = true;
const poll = async () => {
  let after = 0;
  while (running) {
    const page = await db.sessions.turns(session.id, { afterSeq: after, limit: 200 });
    for (const turn of page) seen.add(turn.content);
    if (page.length > 0) after = page.at(-1).seq;
  }
};
const readers = [poll(), poll(), poll()];
let failure;
for (let round = 0; failure === undefined && round < 10000; round += 1) {
  const contents = Array.from({ length: 16 }, (_, i) => 'turn ' + round + '.' + i + ' ' + 'x'.repeat(1500));
  const outcomes = await Promise.allSettled(contents.map((content) => db.sessions.appendTurn({ sessionId: session.id, role: 'user', content })));
  outcomes.forEach((o, i) => (o.status === 'fulfilled' ? acked.push(contents[i]) : (failure ??= o.reason)));
}
running = false;
await Promise.all(readers);
for (const content of acked) process.stdout.write('ack ' + content.split(' ')[1] + '\\n');
for (const content of seen) process.stdout.write('seen ' + content.split(' ')[1] + '\\n');
process.stdout.write('error ' + JSON.stringify({ name: failure?.name, code: failure?.code }) + '\\n');
await db.close().catch(() => undefined);
`;

describe('readers while a group COMMIT meets a full disk (a file-size limit)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it('never return a turn of the failed group, and the file holds exactly the acknowledged turns', async () => {
    const path = tmp.file();
    // 2000 KiB: the schema and a few hundred turns fit, then a COMMIT meets the limit.
    const run = runUnderFileLimit(tmp.dir, CHILD, 2000, [path]);
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const sessionId = lines[0]!.replace(/^session /, '');
    const acked = lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    const seen = lines.filter((l) => l.startsWith('seen ')).map((l) => l.slice(5));
    expect(JSON.parse(lines.at(-1)!.replace(/^error /, ''))).toEqual({ name: 'DiskFullError', code: 'disk_full' });
    expect(acked.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);

    const db = await openSqlite(path);
    const stored = (await db.sessions.turns(sessionId, { limit: 10_000 })).map((t) => t.content.split(' ')[1]!);
    await db.close();
    expect([...stored].sort()).toEqual([...acked].sort());
    // Every turn a reader returned is in the file: none was seen before a COMMIT that then failed.
    expect(seen.filter((name) => !stored.includes(name))).toEqual([]);
  });
});
