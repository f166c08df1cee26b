/**
 * Import and export never replace a file that appeared while they ran, and
 * leave no temporary file behind, whether they fail, are interrupted or
 * killed. Real processes; an import reads stdin, so the test decides when
 * it may finish: it feeds half the export, acts while the import waits for
 * the rest, then feeds the rest. The commands around them, whose process is
 * not what is checked, run inside the test's process.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, failureLine, tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';
import { exportText, generateEvents, writeDatabase } from './generate.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

const EVENTS = 2_000;
let text = '';
let firstHalf = '';
let secondHalf = '';
const exported = tmp.path('export.jsonl');

beforeAll(async () => {
  text = exportText(await generateEvents(EVENTS));
  writeFileSync(exported, text);
  const cut = text.indexOf('\n', text.length / 2) + 1;
  firstHalf = text.slice(0, cut);
  secondHalf = text.slice(cut);
});

/** Starts `agentstate import - --db target` with its stdin open. */
function startImport(target: string): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [BIN, 'import', '-', '--db', target], { env: { ...process.env, NO_COLOR: '1', AGENTSTATE_DB: '' } });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  // Interrupted or refused, the import stops reading: what is still being fed is lost on purpose.
  child.stdin.on('error', () => {});
  return child;
}

/** Waits until `name` is in the folder (the import has made its temporary file). */
async function appears(name: string): Promise<void> {
  while (!readdirSync(tmp.dir).includes(name)) await new Promise((r) => setTimeout(r, 5));
}

/** Collects a child's output and waits for its end. */
async function finished(child: ChildProcessWithoutNullStreams) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: string) => (stdout += c));
  child.stderr.on('data', (c: string) => (stderr += c));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { code: code ?? -1, signal, stdout, stderr };
}

const temporaries = (): string[] => readdirSync(tmp.dir).filter((f) => /\.(importing|exporting)-\d+/.test(f));

describe('import into a path that something else creates meanwhile', () => {
  it('keeps a memory write acknowledged during the import and fails cleanly', async () => {
    const target = tmp.path('raced.db');
    const child = startImport(target);
    const done = finished(child);
    child.stdin.write(firstHalf);
    await appears(`raced.db.importing-${child.pid}`);
    const id = ok(['memory', 'write', 'written while the import ran', '--db', target]).trim();
    child.stdin.end(secondHalf);
    const r = await done;
    expect(failureLine(r, 1, ['import'])).toMatch(/raced\.db appeared while the import ran and was left untouched/);
    expect(okJson(['memory', 'show', id, '--db', target])).toMatchObject({ content: 'written while the import ran' });
    expect(okJson(['verify', '--db', target])).toMatchObject({ ok: true, events: 1 });
    expect(temporaries()).toEqual([]);
  });

  it('refuses a target with a leftover -wal, -shm or -journal, and touches none of them', () => {
    for (const suffix of ['-wal', '-shm', '-journal']) {
      const target = tmp.path(`leftover${suffix}.db`);
      writeFileSync(`${target}${suffix}`, 'the last writes of a lost database');
      expect(fails(1, ['import', exported, '--db', target])).toContain(`${target}${suffix} exists without its database`);
      expect(existsSync(target)).toBe(false);
      expect(readFileSync(`${target}${suffix}`, 'utf8')).toBe('the last writes of a lost database');
    }
    expect(temporaries()).toEqual([]);
  });
});

describe('an interrupted import', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`removes its temporary files on ${signal} and exits ${code}`, async () => {
      const target = tmp.path(`interrupted-${signal}.db`);
      const child = startImport(target);
      const done = finished(child);
      child.stdin.write(firstHalf);
      await appears(`interrupted-${signal}.db.importing-${child.pid}`);
      child.kill(signal);
      expect(await done).toMatchObject({ code, stderr: `agentstate: import stopped by ${signal}: nothing was written to ${target}\n` });
      expect(existsSync(target)).toBe(false);
      expect(temporaries()).toEqual([]);
    });
  }

  it('killed with SIGKILL, leaves files that the next import into the folder removes', async () => {
    const target = tmp.path('killed.db');
    const child = startImport(target);
    const done = finished(child);
    child.stdin.write(firstHalf);
    await appears(`killed.db.importing-${child.pid}`);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    expect(temporaries()).not.toEqual([]);
    ok(['import', exported, '--db', tmp.path('next.db')]);
    expect(temporaries()).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });
});

describe('export --out', () => {
  const db = tmp.path('export-source.db');
  beforeAll(async () => writeDatabase(db, await generateEvents(20_000)));

  it('never replaces a file that appeared while it ran (without --force)', async () => {
    const out = tmp.path('raced.jsonl');
    const child = spawn(process.execPath, [BIN, 'export', '--out', out, '--db', db], { env: { ...process.env, NO_COLOR: '1' } });
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    const done = finished(child as ChildProcessWithoutNullStreams);
    await appears(`raced.jsonl.exporting-${child.pid}`);
    // Paused, the export cannot finish before the file appears.
    child.kill('SIGSTOP');
    writeFileSync(out, 'made by someone else');
    child.kill('SIGCONT');
    const r = await done;
    expect(failureLine(r, 1, ['export'])).toMatch(/raced\.jsonl appeared while the export ran and was left untouched/);
    expect(readFileSync(out, 'utf8')).toBe('made by someone else');
    expect(temporaries()).toEqual([]);
  });

  it('refuses to write over the database it exports, even with --force', () => {
    // Earlier read-only commands may have left SQLite's empty side files, as any reader does: they must stay as they are.
    const sides = (): Array<string | null> => [db, `${db}-wal`].map((f) => (existsSync(f) ? readFileSync(f).toString('hex') : null));
    const before = sides();
    for (const out of [db, `${db}-wal`]) expect(fails(1, ['export', '--out', out, '--force', '--db', db])).toContain('is the database being exported');
    expect(sides()).toEqual(before);
  });
});
