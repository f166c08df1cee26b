/** `agentstate verify`, `rebuild`, `snapshot` and `stats`: the health of a database. */
import type { Command } from 'commander';
import type { Snapshot, Vector } from '@agentstate/core';
import { STATE_STREAM, encodeSnapshot, storedSnapshotBytes } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show } from '../context.js';
import type { Database } from '../database.js';
import { withDatabase } from '../database.js';
import { UserError } from '../errors.js';
import { io } from '../io.js';
import { bytes, count, print, printFields, printJson, shortTime } from '../output.js';
import { describeTarget, resolveSnapshotKey, SNAPSHOT_KEY_ENV } from '@agentstate/open';
import { fileSize } from '@agentstate/sqlite';
import { countSnapshot, type RecordCounts } from '@agentstate/ui';
import type { SnapshotKey } from '@agentstate/open';
import { assertVerified, printVerifyReport, runVerify, sha256, skippedLine } from '../verify.js';

const KEY_FLAGS = '--snapshot-key <file>';
const KEY_HELP = `the key stored snapshots are sealed with: an HMAC secret, or an Ed25519 key in PEM (default: $${SNAPSHOT_KEY_ENV})`;

/** The snapshot key of a command's `--snapshot-key` flag or the environment. */
function snapshotKey(opts: { snapshotKey?: string }): SnapshotKey | undefined {
  return resolveSnapshotKey(opts.snapshotKey, io().env, io().cwd);
}

/** What the database takes: the file and its WAL, or the schema's tables on a PostgreSQL server. */
async function sizes(db: Database, path: string): Promise<{ sizeBytes: number; walBytes: number }> {
  if ('schema' in db) return { sizeBytes: await db.sizeBytes(), walBytes: 0 };
  return { sizeBytes: fileSize(path), walBytes: fileSize(`${path}-wal`) };
}

async function gatherStats(db: Database, path: string) {
  const snapshot: Snapshot = await db.snapshot();
  const head = await db.log.head(STATE_STREAM);
  const [first] = head > 0 ? await db.log.read({ stream: STATE_STREAM, limit: 1 }) : [];
  const [last] = head > 0 ? await db.log.read({ stream: STATE_STREAM, afterSeq: head - 1, limit: 1 }) : [];
  const stored = await db.log.latestSnapshot(STATE_STREAM);
  const { sessions, skills, memory } = countSnapshot(snapshot);
  return {
    path: describeTarget(path),
    backend: db.name,
    head,
    firstEventAt: first?.time ?? null,
    lastEventAt: last?.time ?? null,
    sessions,
    // Every turn record, tombstones and turns of deleted sessions too (the inspector counts live ones).
    turns: snapshot.turns.length,
    skills,
    memory,
    threads: new Set(snapshot.checkpoints.map((c) => c.threadId)).size,
    checkpoints: snapshot.checkpoints.length,
    lastSnapshot: stored ? { seq: stored.seq, bytes: await storedSnapshotBytes(db.log, stored), behind: head - stored.seq } : null,
    ...(await sizes(db, path)),
    ...(await origins(db)),
  };
}

/**
 * This store's replica id and, for each origin it holds, how far it has received it whole (its own: its head) and,
 * where it holds later events of it (a scoped sync's, in part), the last of those (`held`).
 */
async function origins(db: Database): Promise<{ replica: string; origins: { origin: string; seq: number; held?: number }[] }> {
  const [replica, whole, held] = await Promise.all([db.replicaId(), db.vector(), db.log.vector?.() ?? ({} as Vector)]);
  return {
    replica,
    origins: Object.entries(whole).map(([origin, seq]) => {
      const last = origin === replica ? 0 : (held[origin] ?? 0);
      return last > seq ? { origin, seq, held: last } : { origin, seq };
    }),
  };
}

/** The maintenance commands. */
export function maintenanceCommands(): Command[] {
  const verify = new CliCommand('verify')
    .description(SUMMARIES.verify)
    .option('--quick', "SQLite's quick check instead of the full integrity check (skips comparing indexes with their tables; PostgreSQL: no effect)")
    .option(KEY_FLAGS, KEY_HELP)
    .run(async (ctx, opts: { quick?: boolean; snapshotKey?: string }) => {
      const key = snapshotKey(opts);
      const report = await withDatabase(ctx.dbPath, { readonly: true, snapshotCodec: key?.codec }, (db) =>
        runVerify(db, { json: ctx.json, quick: opts.quick }),
      );
      show(ctx, report, printVerifyReport);
      assertVerified(report);
    });

  const rebuild = new CliCommand('rebuild')
    .description(SUMMARIES.rebuild)
    .option('--from-scratch', 'ignore snapshots and fold every event from seq 1')
    .option(KEY_FLAGS, KEY_HELP)
    .run(async (ctx, opts: { fromScratch?: boolean; snapshotKey?: string }) => {
      const key = snapshotKey(opts);
      const started = performance.now();
      const { stderr } = io();
      const spinner = !ctx.json && (stderr as { isTTY?: boolean }).isTTY === true;
      const result = await withDatabase(ctx.dbPath, { snapshotCodec: key?.codec }, async (db) => {
        if (spinner) stderr.write('rebuilding…');
        try {
          return await db.rebuild({ fromScratch: opts.fromScratch });
        } finally {
          if (spinner) stderr.write('\r\u001b[K');
        }
      });
      const report = { ...result, seconds: (performance.now() - started) / 1000 };
      if (ctx.json) return printJson(report);
      const from =
        result.snapshotSeq > 0 ? `the snapshot at seq ${count(result.snapshotSeq)} and ${count(result.events)} later events` : `${count(result.events)} events`;
      print(`rebuilt the tables from ${from} in ${report.seconds.toFixed(2)} s`);
      for (const s of result.skipped) print(`  ${skippedLine(s)}`);
    });

  const snapshot = new CliCommand('snapshot')
    .description(SUMMARIES.snapshot)
    .option('--print', 'write the canonical snapshot text to stdout instead of saving it')
    .option(KEY_FLAGS, KEY_HELP)
    .run(async (ctx, opts: { print?: boolean; snapshotKey?: string }) => {
      if (opts.print) {
        const text = await withDatabase(ctx.dbPath, { readonly: true }, async (db) => encodeSnapshot(await db.snapshot()));
        print(text);
        return;
      }
      const key = snapshotKey(opts);
      if (key && !key.canSeal)
        throw new UserError(`the snapshot key ${key.path} is an Ed25519 public key: it verifies snapshots, but sealing one needs the private key`);
      const { stored, size } = await withDatabase(ctx.dbPath, { snapshotCodec: key?.codec }, async (db) => {
        const saved = await db.saveSnapshot();
        return { stored: saved, size: await storedSnapshotBytes(db.log, saved) };
      });
      const sealedWith = key?.codec.id ?? null;
      const result = { seq: stored.seq, bytes: size, sha256: sha256(stored.data), sealedWith };
      show(ctx, result, `saved a snapshot at seq ${count(result.seq)} (${bytes(result.bytes)}), ${sealedWith ? `sealed with ${sealedWith}` : 'unsealed'}`);
    });

  const stats = new CliCommand('stats').description(SUMMARIES.stats).run(async (ctx) => {
    const s = await withDatabase(ctx.dbPath, { readonly: true }, (db) => gatherStats(db, ctx.dbPath));
    const live = (c: RecordCounts): string => `${count(c.live)}${c.deleted ? ` (+${count(c.deleted)} deleted)` : ''}`;
    show(ctx, s, () =>
      printFields([
        ['database', `${s.path} (${s.backend})`],
        ['size', `${bytes(s.sizeBytes)}${s.walBytes ? ` + ${bytes(s.walBytes)} WAL` : ''}`],
        ['events', `${count(s.head)}${s.firstEventAt ? ` (${shortTime(s.firstEventAt)} … ${shortTime(s.lastEventAt!)})` : ''}`],
        ['sessions', live(s.sessions)],
        ['turns', count(s.turns)],
        ['skills', live(s.skills)],
        ['memory', live(s.memory)],
        ['threads', `${count(s.threads)} (${count(s.checkpoints)} checkpoints)`],
        [
          'last snapshot',
          s.lastSnapshot ? `seq ${count(s.lastSnapshot.seq)}, ${bytes(s.lastSnapshot.bytes)}, ${count(s.lastSnapshot.behind)} events behind` : 'none',
        ],
        ...s.origins.map(({ origin, seq, held }): [string, string] => [
          'origin',
          `${origin} up to #${count(seq)}${origin === s.replica ? ' (this store)' : ''}${held ? `, and in part up to #${count(held)} (a scoped sync's)` : ''}`,
        ]),
      ]),
    );
  });

  return [verify, rebuild, snapshot, stats];
}
