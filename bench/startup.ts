/**
 * Command start-up benchmark (issue targets on a quiet machine: `agentstate
 * --version` and `--help` ≤ 150 ms, a lexical `memory recall` on a small file
 * ≤ 300 ms). Runs each command BENCH_STARTUP_RUNS times (default 20, after
 * one warm-up run) as a child process of the built `agentstate` and prints
 * the median and p90 wall-clock time next to `node -e 0`, the floor no
 * command can beat. On Linux it also shows the median CPU time of the child
 * (user + system), which a busy machine inflates less than wall-clock time.
 * Run: `npm run build` at the root, then `npm run startup -w @agentstate/bench`.
 * BENCH_STARTUP_BIN runs another build's `agentstate` instead (a bin path).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { openSqlite } from '@agentstate/sqlite';
import { fmt, percentile, printTable } from './table.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 20);
const ITEMS = 50;
// Another build's bin (BENCH_STARTUP_BIN) compares two versions on the same machine in the same hour.
const BIN = process.env.BENCH_STARTUP_BIN ?? fileURLToPath(new URL('../packages/cli/bin/agentstate.js', import.meta.url));
// The SQLite package of the same build: what every process that opens a file pays before its first call.
const SQLITE = new URL('../../sqlite/dist/index.js', pathToFileURL(BIN)).href;

/** CPU milliseconds used by this process's waited-for children, from /proc (Linux only). */
function childrenCpuMs(): number | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  // Fields after the command name: cutime and cstime are the 14th and 15th, in clock ticks (100 per second on Linux).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Sample {
  wallMs: number;
  cpuMs: number | undefined;
}

function runOnce(args: readonly string[]): Sample {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const wallMs = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (child.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${child.status}: ${child.stderr}`);
  return { wallMs, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

async function smallDatabase(path: string): Promise<void> {
  const db = await openSqlite(path);
  try {
    for (let i = 0; i < ITEMS; i += 1) {
      await db.memory.write({ content: `note ${i}: the staging deploy ${i % 2 === 0 ? 'failed' : 'passed'} after the migration`, kind: 'fact' });
    }
  } finally {
    await db.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'agentstate-startup-'));
try {
  const db = join(dir, 'state.db');
  await smallDatabase(db);
  const cases: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['node -e 0 (the floor)', ['-e', '0']],
    ['import @agentstate/sqlite', ['--input-type=module', '-e', `await import(${JSON.stringify(SQLITE)})`]],
    ['agentstate --version', [BIN, '--version']],
    ['agentstate --help', [BIN, '--help']],
    [`agentstate memory recall deploy --mode lexical (${ITEMS} items)`, [BIN, 'memory', 'recall', 'deploy', '--mode', 'lexical', '--db', db]],
    ['agentstate mcp --help', [BIN, 'mcp', '--help']],
  ];
  const rows: string[][] = [];
  let floor = 0;
  for (const [label, args] of cases) {
    runOnce(args);
    const samples = Array.from({ length: RUNS }, () => runOnce(args));
    const walls = samples.map((s) => s.wallMs);
    const cpus = samples.map((s) => s.cpuMs).filter((c): c is number => c !== undefined);
    const median = percentile(walls, 50);
    if (rows.length === 0) floor = median;
    rows.push([
      label,
      `${fmt(median)} ms`,
      `${fmt(percentile(walls, 90))} ms`,
      rows.length === 0 ? '—' : `+${fmt(median - floor)} ms`,
      cpus.length === samples.length ? `${fmt(percentile(cpus, 50))} ms` : '—',
    ]);
  }
  printTable(
    `Command start-up, ${RUNS} runs each (wall-clock; CPU is the child's user + system time)`,
    ['command', 'median', 'p90', 'over the floor', 'CPU median'],
    rows,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
