/**
 * `run(argv, io)` of `@agentstate/cli`: a host runs the command in its own
 * process with streams, an environment and a working directory of its own,
 * and the run leaves nothing behind in that process.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '@agentstate/cli';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

/** Runs `agentstate ...args` in this thread with its own streams; `env` is its whole environment. */
async function inThisProcess(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString('utf8'));
        done();
      },
    });
  const code = await run(['node', 'agentstate', ...args], {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)], { objectMode: false }),
    env: options.env ?? {},
    cwd: options.cwd ?? tmp.dir,
  });
  return { code, stdout, stderr };
}

describe('run(argv, io)', () => {
  it('reads stdin from the io, writes to its streams and resolves a relative --db against its working directory', async () => {
    const cwd = tmp.path('project');
    mkdirSync(cwd);
    const written = await inThisProcess(['memory', 'write', '--file', '-', '--db', 'relative.db', '--json'], { cwd, input: 'from the given stdin' });
    expect(written).toMatchObject({ code: 0, stderr: '' });
    const recalled = await inThisProcess(['memory', 'recall', '--db', tmp.path('project/relative.db'), '--json']);
    expect(JSON.parse(recalled.stdout).map((h: { content: string }) => h.content)).toEqual(['from the given stdin']);
  });

  it("takes AGENTSTATE_DB and the default path from the io's environment and working directory, not the process's", async () => {
    const cwd = tmp.path('other');
    mkdirSync(cwd);
    expect((await inThisProcess(['memory', 'write', 'in the default'], { cwd })).code).toBe(0);
    expect((await inThisProcess(['memory', 'write', 'in the env one'], { cwd, env: { AGENTSTATE_DB: 'env.db' } })).code).toBe(0);
    const recall = async (db: string) => JSON.parse((await inThisProcess(['memory', 'recall', '--json', '--db', db])).stdout)[0].content;
    expect(await recall(tmp.path('other/.agentstate/state.db'))).toBe('in the default');
    expect(await recall(tmp.path('other/env.db'))).toBe('in the env one');
  });

  it("reads a relative AGENTSTATE_SNAPSHOT_KEY against the io's working directory, for every command that opens the database", async () => {
    const cwd = tmp.path('sealed');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'snapshot.key'), 'a secret of at least sixteen bytes');
    const env = { AGENTSTATE_SNAPSHOT_KEY: 'snapshot.key' };
    expect(await inThisProcess(['memory', 'write', 'sealed fact', '--db', 'state.db'], { cwd, env })).toMatchObject({ code: 0, stderr: '' });
    expect(await inThisProcess(['snapshot', '--db', 'state.db'], { cwd, env })).toMatchObject({ code: 0, stderr: '' });
    const verified = await inThisProcess(['verify', '--db', 'state.db', '--json'], { cwd, env });
    expect(verified).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, skippedSnapshots: [] });
  });

  it('leaves nothing behind: not the exit code, not a signal listener, not --local-time', async () => {
    const db = tmp.path('state.db');
    const listeners = () => ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => process.listenerCount(signal));
    const before = { exitCode: process.exitCode, listeners: listeners() };
    const failed = await inThisProcess(['memory', 'show', 'nothing', '--db', tmp.path('missing.db')]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^agentstate: no agentstate database at /);
    expect(process.exitCode).toBe(before.exitCode);

    expect((await inThisProcess(['sessions', 'create', '--title', 'kept', '--db', db])).code).toBe(0);
    const exported = tmp.path('state.jsonl');
    expect((await inThisProcess(['export', '--out', exported, '--db', db])).code).toBe(0);
    expect((await inThisProcess(['import', exported, '--db', tmp.path('imported.db')])).code).toBe(0);
    expect((await inThisProcess(['sync', db, tmp.path('replica.db'), '--batch-size', '1'])).code).toBe(0);
    expect(listeners()).toEqual(before.listeners);

    const utc = /\d{2}:\d{2}:\d{2}Z/;
    expect((await inThisProcess(['sessions', 'list', '--local-time', '--db', db])).stdout).not.toMatch(utc);
    expect((await inThisProcess(['sessions', 'list', '--db', db])).stdout).toMatch(utc);
  });

  it('keeps the output of runs at the same time apart', async () => {
    const db = tmp.path('apart.db');
    expect((await inThisProcess(['memory', 'write', 'one fact', '--db', db])).code).toBe(0);
    const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => inThisProcess(i % 2 === 0 ? ['stats', '--json', '--db', db] : ['--help'])));
    runs.forEach((r, i) => {
      expect(r.code).toBe(0);
      if (i % 2 === 0) expect(JSON.parse(r.stdout)).toMatchObject({ head: 1 });
      else expect(r.stdout).toMatch(/^Usage: agentstate/);
    });
  });
});
