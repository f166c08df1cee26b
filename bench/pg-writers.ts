/**
 * The writers table of the PostgreSQL benchmark (issue 29): durable
 * appends by 1, 4 and 16 writers, each a separate process (bench/pg-writer.ts)
 * with its own connection, all released at once after their set-up and
 * warm-up. Each row gives the rate (appends per second of wall time from the
 * start signal to the last writer's end), the CPU per append of the clients
 * (the sum of `process.cpuUsage()` over the writers' timed loops) and of the
 * server (utime + stime, from /proc, of the postmaster and its children —
 * the backends serving the writers, WAL writer, checkpointer — between the
 * same two moments; '—' when the server is not a local process), the
 * 1-minute load average at the start, and a check of what the schema holds
 * afterwards: every acknowledged turn stored once, and turn numbers 1…n in
 * each session. Rows: agentstate's `appendTurn` (each writer its own
 * session, then 16 on one session), `@mastra/pg` `saveMessages` (one per
 * turn, each writer its own thread), raw `pg` sending the store's
 * statements (pg-writer.ts `rawAppend`) and `pgbench`'s write transaction
 * with as many clients (pg-ceiling.ts); then the ratios issue 29 targets
 * and, from the raw and `pgbench` rows, their ceilings on the machine the
 * run is on. The machine's noise moves single runs by a third and more, so
 * every row runs once a round, for several rounds, and the tables give
 * medians and ranges.
 */
import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { dropPgbench, PGBENCH, pgbench, preparePgbench } from './pg-ceiling.js';
import { dropSchema } from './pg-server.js';
import type { AppendedTurn, FromWriter, ToWriter, WriterKind } from './pg-writer.js';
import { fmt, percentile, printTable } from './table.js';

const WRITER = fileURLToPath(new URL('./pg-writer.ts', import.meta.url));
/** The rows' writer counts (`BENCH_PG_WRITERS`, comma-separated): 1 alone measures an append's CPU cost. */
const WRITERS = (process.env.BENCH_PG_WRITERS ?? '1,4,16').split(',').map(Number);
/** The stores the rows run (`BENCH_PG_KINDS`, comma-separated; default all three): one alone for a quick comparison of two builds. */
const KINDS = new Set((process.env.BENCH_PG_KINDS ?? 'agentstate,raw,mastra').split(','));
/**
 * Whether a run with 16 writers and agentstate also runs sixteen on one session (`BENCH_PG_SHARED`; `0` leaves
 * the row out): a quick comparison of two builds need not pay its minutes a round.
 */
const SHARED = process.env.BENCH_PG_SHARED !== '0';

/** What a row runs: a store's writers, or `pgbench`'s clients (pg-ceiling.ts). */
type RowKind = WriterKind | 'pgbench';

/** Seconds each `pgbench` row runs (`BENCH_PG_PGBENCH_SECONDS`; 0 leaves its rows out). */
const PGBENCH_SECONDS = Number(process.env.BENCH_PG_PGBENCH_SECONDS ?? 5);

/** One timed run and what the schema held after it. */
interface Run {
  kind: RowKind;
  writers: number;
  oneSession: boolean;
  appends: number;
  perSecond: number;
  /** `undefined` for `pgbench`, whose process this does not measure. */
  clientCpuMs: number | undefined;
  serverCpuMs: number | undefined;
  load: number;
  check: string;
}

// ---------------------------------------------------------------- server CPU

/** Clock ticks per second of /proc's CPU times. */
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces): [state, ppid, …]. */
const statFields = (pid: string | number): string[] => {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
};

/** The postmaster's pid: the parent of a backend serving `url`, when that backend is a process of this machine. */
async function postmasterOf(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return Number(statFields(rows[0]!.pid)[1]);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * CPU milliseconds the postmaster and its children have used so far: utime + stime of each, and the
 * postmaster's cutime + cstime, where the kernel adds the time of each child the postmaster reaped (a backend of
 * a connection closed, an autovacuum worker that finished).
 */
function serverCpuMs(postmaster: number | undefined): number | undefined {
  if (postmaster === undefined) return undefined;
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const fields = statFields(pid);
      // After the name: state (0), ppid (1), … utime (11), stime (12), cutime (13), cstime (14).
      if (Number(pid) === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      else if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while the list was read.
    }
  }
  return (ticks * 1000) / TICKS;
}

// ---------------------------------------------------------------- writers

/** The writer's next answer, which must be of `type`; its failure or exit rejects. */
function answer<T extends FromWriter['type']>(child: ChildProcess, type: T): Promise<Extract<FromWriter, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a writer exited (${code}) before its ${type}`));
    child.once('exit', onExit);
    child.once('message', (message: FromWriter) => {
      child.off('exit', onExit);
      if (message.type === type) resolve(message as Extract<FromWriter, { type: T }>);
      else reject(new Error(message.type === 'failed' ? message.error : `a writer answered ${message.type}, not ${type}`));
    });
  });
}

const tell = (child: ChildProcess, message: ToWriter) => child.send(message);

/** Adds `values` to `key`'s list in `map`, one by one: a spread of a long row's turns into `push` would overflow the call. */
function addTo<K, V>(map: Map<K, V[]>, key: K, values: readonly V[]): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [...values]);
  else for (const value of values) list.push(value);
}

/**
 * Whether `schema` holds exactly the acknowledged turns: each id once, in
 * its session, and (but for Mastra, which numbers nothing) each session's
 * turn numbers 1…n with every acknowledged number where it was answered.
 */
async function check(url: string, schema: string, kind: WriterKind, acked: Map<string, AppendedTurn[]>): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ session: string; id: string; seq: number }>(
    kind === 'mastra'
      ? `SELECT thread_id AS session, id, 0 AS seq FROM "${schema}".mastra_messages ORDER BY thread_id, id`
      : `SELECT session_id AS session, id, seq::int FROM "${schema}".turns WHERE NOT deleted ORDER BY session_id, seq`,
  );
  await client.end();
  const stored = new Map<string, { id: string; seq: number }[]>();
  for (const row of rows) addTo(stored, row.session, [row]);
  const problems: string[] = [];
  for (const [session, turns] of acked) {
    const held = stored.get(session) ?? [];
    const seqOf = new Map(held.map((t) => [t.id, t.seq]));
    const lost = turns.filter(([id]) => !seqOf.has(id)).length;
    if (lost > 0) problems.push(`${lost} lost`);
    if (held.length !== turns.length) problems.push(`${held.length} stored for ${turns.length} acknowledged`);
    if (kind === 'mastra') continue;
    if (held.some((t, i) => t.seq !== i + 1)) problems.push('turn numbers not 1…n');
    if (turns.some(([id, seq]) => seqOf.has(id) && seqOf.get(id) !== seq)) problems.push('a turn stored under another number than answered');
  }
  return problems.length === 0 ? 'ok' : `failed: ${[...new Set(problems)].join(', ')}`;
}

/**
 * What `work` answers, and how it was timed, as every row is: the 1-minute load average before it, its wall
 * time, and the server's CPU over it ({@link serverCpuMs}; `undefined` when the server is not a local process).
 */
async function timed<T>(
  postmaster: number | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; load: number; wallMs: number; serverCpuMs: number | undefined }> {
  const load = loadavg()[0]!;
  const before = serverCpuMs(postmaster);
  const start = performance.now();
  const result = await work();
  const wallMs = performance.now() - start;
  const after = serverCpuMs(postmaster);
  return { result, load, wallMs, serverCpuMs: before === undefined || after === undefined ? undefined : after - before };
}

/**
 * Starts `writers` writer processes, sets them up (the first alone: it
 * makes the schema and, with `oneSession`, the session the others append
 * to), releases them at once and times `perWriter` appends each.
 */
async function run(url: string, postmaster: number | undefined, kind: WriterKind, writers: number, perWriter: number, oneSession = false): Promise<Run> {
  const schema = `bench_writers_${kind}_${writers}${oneSession ? '_one' : ''}`;
  await dropSchema(url, schema);
  const children = Array.from({ length: writers }, () => fork(WRITER, [kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  try {
    await Promise.all(children.map((child) => answer(child, 'started')));
    const setUp = async (writer: number, sessionId?: string) => {
      const ready = answer(children[writer]!, 'ready');
      tell(children[writer]!, { type: 'setup', url, schema, writer, count: perWriter, sessionId });
      return (await ready).sessionId;
    };
    // The first makes the schema (and the shared session) alone; the others then set up at once.
    const first = await setUp(0);
    const sessions = [first, ...(await Promise.all(children.slice(1).map((_, i) => setUp(i + 1, oneSession ? first : undefined))))];
    const done = children.map((child) => answer(child, 'done'));
    const { result: results, ...timing } = await timed(postmaster, () => {
      for (const child of children) tell(child, { type: 'go' });
      return Promise.all(done);
    });
    const exited = children.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of children) tell(child, { type: 'close' });
    await Promise.all(exited);
    const acked = new Map<string, AppendedTurn[]>();
    for (const [writer, result] of results.entries()) addTo(acked, sessions[writer]!, result.turns);
    const appends = writers * perWriter;
    return {
      kind,
      writers,
      oneSession,
      appends,
      perSecond: (appends / timing.wallMs) * 1000,
      clientCpuMs: results.reduce((sum, r) => sum + r.cpuMs, 0),
      serverCpuMs: timing.serverCpuMs,
      load: timing.load,
      check: await check(url, schema, kind, acked),
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    await dropSchema(url, schema);
  }
}

/** Runs `clients` `pgbench` clients for {@link PGBENCH_SECONDS} on the database at `target`, timed as a writers row is. */
async function runPgbench(target: string, postmaster: number | undefined, clients: number): Promise<Run> {
  const { result: appends, ...timing } = await timed(postmaster, () => pgbench(target, clients, PGBENCH_SECONDS));
  return {
    kind: 'pgbench',
    writers: clients,
    oneSession: false,
    appends,
    perSecond: (appends / timing.wallMs) * 1000,
    clientCpuMs: undefined,
    serverCpuMs: timing.serverCpuMs,
    load: timing.load,
    check: '—',
  };
}

// ---------------------------------------------------------------- the tables

const KIND_LABEL: Record<RowKind, string> = {
  agentstate: 'agentstate appendTurn',
  mastra: '@mastra/pg saveMessages',
  raw: "raw pg, the store's statements",
  pgbench: 'pgbench -N, C client (transactions)',
};

/** The median of `values` (the lower of the middle two for an even count). */
const median = (values: readonly number[]): number => percentile(values, 50);

/** `median (min–max)` of `values`, or the value alone when there is one. */
function spread(values: readonly number[], digits: number, unit = ''): string {
  const text = (n: number) => `${fmt(n, digits)}${unit}`;
  if (values.length === 1) return text(values[0]!);
  return `${text(median(values))} (${fmt(Math.min(...values), digits)}–${text(Math.max(...values))})`;
}

/** One row of the table: a store, its writers and its sessions, and its runs, a round each. */
interface Row {
  kind: RowKind;
  writers: number;
  oneSession: boolean;
  runs: Run[];
}

/** `a / b` within each round, as {@link spread}: the rows of one round ran close together in time. */
const perRound = (a: Row | undefined, b: Row | undefined): string =>
  a === undefined || b === undefined
    ? '—'
    : spread(
        a.runs.map((run, round) => run.perSecond / b.runs[round]!.perSecond),
        2,
        '×',
      );

/** What the schema held after each of a row's runs: `ok`, or the first failure. */
const checked = (r: Row | undefined): string => (r === undefined ? '—' : (r.runs.find((run) => run.check !== 'ok')?.check ?? 'ok'));

/**
 * Runs the writers and prints their table and the ratios issue 29 targets.
 * `turns` appends per row, shared among its writers; `rounds` times every
 * row, one round after the other, so that what else the machine does at a
 * time weighs on all the stores alike; the tables give each row's median
 * and range, and each ratio's within a round.
 */
export async function benchWriters(url: string, turns: number, rounds: number): Promise<void> {
  const postmaster = await postmasterOf(url);
  const rows: Row[] = [];
  const find = (kind: RowKind, writers: number, oneSession = false) =>
    rows.find((r) => r.kind === kind && r.writers === writers && r.oneSession === oneSession);
  const add = (kind: RowKind, writers: number, oneSession: boolean, ran: Run) => {
    const found = find(kind, writers, oneSession);
    if (found === undefined) rows.push({ kind, writers, oneSession, runs: [ran] });
    else found.runs.push(ran);
  };
  const perWriter = (writers: number) => Math.max(1, Math.floor(turns / writers));
  const ceiling = PGBENCH !== undefined && PGBENCH_SECONDS > 0 ? await preparePgbench(url) : undefined;
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const writers of WRITERS) {
        for (const kind of ['agentstate', 'raw', 'mastra'] as const)
          if (KINDS.has(kind)) add(kind, writers, false, await run(url, postmaster, kind, writers, perWriter(writers)));
        if (ceiling !== undefined) add('pgbench', writers, false, await runPgbench(ceiling, postmaster, writers));
      }
      if (SHARED && WRITERS.includes(16) && KINDS.has('agentstate'))
        add('agentstate', 16, true, await run(url, postmaster, 'agentstate', 16, perWriter(16), true));
    }
  } finally {
    if (ceiling !== undefined) await dropPgbench(url);
  }
  /** The median of a row's CPU per append, from `ms` of each run; '—' when the runs have none. */
  const perAppend = (r: Row, ms: (run: Run) => number | undefined) => {
    const values = r.runs.flatMap((run) => {
      const used = ms(run);
      return used === undefined ? [] : [used / run.appends];
    });
    return values.length === 0 ? '—' : `${fmt(median(values), 2)} ms`;
  };
  printTable(
    `Durable appends (fsync and synchronous_commit on), each writer a separate process on its own connection, one awaited call per append; ${rounds === 1 ? 'one run' : `median (range) of ${rounds} rounds`}`,
    [
      'store',
      'writers',
      'sessions',
      'appends',
      'appends/s',
      '× 1 writer',
      'client CPU/append',
      'server CPU/append',
      'load at start',
      'stored: all, numbers dense',
    ],
    rows.map((r) => [
      KIND_LABEL[r.kind],
      String(r.writers),
      r.kind === 'pgbench' ? '—' : r.oneSession ? 'one shared' : 'one each',
      fmt(median(r.runs.map((run) => run.appends))),
      spread(
        r.runs.map((run) => run.perSecond),
        0,
      ),
      r.writers === 1 ? '—' : perRound(r, find(r.kind, 1)),
      perAppend(r, (run) => run.clientCpuMs),
      perAppend(r, (run) => run.serverCpuMs),
      spread(
        r.runs.map((run) => run.load),
        1,
      ),
      checked(r),
    ]),
  );
  printTable(
    'Ratios of the rates above (issue 29), each within a round',
    ['ratio', 'measured', 'target'],
    [
      ['agentstate, 16 writers / 1 writer', perRound(find('agentstate', 16), find('agentstate', 1)), '≥ 1× (≥ 2× on 2 cores)'],
      ['agentstate / @mastra/pg, 16 writers', perRound(find('agentstate', 16), find('mastra', 16)), '≥ 1.5×'],
      ['agentstate / raw pg, 1 writer', perRound(find('agentstate', 1), find('raw', 1)), '≥ 0.7×'],
      ['ceiling: raw pg, 16 writers / 1 writer', perRound(find('raw', 16), find('raw', 1)), '—'],
      ['ceiling: raw pg / @mastra/pg, 16 writers', perRound(find('raw', 16), find('mastra', 16)), '—'],
      ['ceiling of the server: pgbench -N, 16 clients / 1 client', perRound(find('pgbench', 16), find('pgbench', 1)), '—'],
      ['16 writers on one session: every turn stored, numbers dense', checked(find('agentstate', 16, true)), 'ok'],
    ],
  );
}
