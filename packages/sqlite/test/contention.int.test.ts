/**
 * Contention never fails a writer that only had to wait (docs/contract.md
 * §10): 16 processes write one file at once while CPU burners load the
 * machine; without a deadline of the caller's, no writer fails, and every
 * acknowledged write is in the file afterwards. Processes, because the
 * write lock they wait for is the file's, across processes.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/index.js';
import { tempDir } from './helpers.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const ENTRY = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const WRITERS = 16;
const ROUNDS = 20;
const BURNERS = 3;

/** A writer: opens the file, writes ROUNDS memory items one after another, prints each acknowledged id, or the first failure. */
const WRITER = `
import { openSqlite } from ${JSON.stringify(ENTRY)};
try {
  const db = await openSqlite(process.argv[2]);
  for (let i = 0; i < ${ROUNDS}; i += 1) {
    const item = await db.memory.write({ content: 'writer ' + process.argv[3] + ' round ' + i });
    process.stdout.write('ack ' + item.id + '\\n');
  }
  await db.close();
} catch (error) {
  process.stdout.write('error ' + JSON.stringify({ name: error?.name, code: error?.code, message: error?.message }) + '\\n');
}
`;

/** Runs a child to its end; resolves with its output. */
function finished(child: ChildProcess): Promise<{ stdout: string; stderr: string; code: number | null }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code }));
  });
}

describe('16 processes writing one file on a loaded machine', () => {
  let tmp: ReturnType<typeof tempDir>;
  const burners: ChildProcess[] = [];
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => {
    for (const burner of burners.splice(0)) burner.kill('SIGKILL');
    tmp.cleanup();
  });

  it('fail no writer, and lose no acknowledged write', async () => {
    const path = tmp.file();
    await (await openSqlite(path)).close();
    const script = tmp.file('writer.mjs');
    writeFileSync(script, WRITER);
    // Each burner stops by itself after 3 minutes too, should this process die before it kills them.
    const burn = 'const end = Date.now() + 180000; while (Date.now() < end) {}';
    for (let i = 0; i < BURNERS; i += 1) burners.push(spawn(process.execPath, ['-e', burn], { stdio: 'ignore' }));
    const runs = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        finished(spawn(process.execPath, [script, path, String(i)], { stdio: ['ignore', 'pipe', 'pipe'], timeout: HANG_GUARD_MS })),
      ),
    );
    const lines = runs.flatMap((run) => run.stdout.trim().split('\n'));
    expect(lines.filter((line) => line.startsWith('error '))).toEqual([]);
    expect(runs.map((run) => ({ code: run.code, stderr: run.stderr }))).toEqual(runs.map(() => ({ code: 0, stderr: '' })));
    const acked = lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
    expect(acked).toHaveLength(WRITERS * ROUNDS);

    const db = await openSqlite(path);
    const stored = new Set((await db.snapshot()).memory.map((m) => m.id));
    await db.close();
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);
  });
});
