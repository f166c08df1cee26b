/**
 * One writer process of the PostgreSQL writers benchmark (bench/pg-writers.ts
 * forks it, one per writer, so each writer has its own process, event loop
 * and connection, as a fleet's would). `pg-writer.ts <kind>`: it loads what
 * it writes with and says `started`; then on `setup` it connects, makes its
 * session (or takes the one given) and writes its warm-up turns, and
 * answers `ready`; on `go` it appends `count` turns, one awaited call at a
 * time, and answers `done` with the CPU time its process spent on them and
 * every turn it appended (warm-ups included, for the parent's check); on
 * `close` it disconnects and exits.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LISTENERS_LOCK_KEY, openPostgres } from '@agentstate/postgres';
import { pipelined } from '../packages/postgres/src/database.js';
import { turnTexts } from './turn-text.js';

/** What a writer does: the store's `appendTurn`, Mastra's `saveMessages`, or raw `pg` sending the store's statements. */
export type WriterKind = 'agentstate' | 'mastra' | 'raw';

/** The parent's messages. */
export type ToWriter =
  | { type: 'setup'; url: string; schema: string; writer: number; count: number; sessionId?: string | undefined }
  | { type: 'go' }
  | { type: 'close' };

/** A turn a writer appended: its id and its number in the session (0 for Mastra, which numbers nothing). */
export type AppendedTurn = [id: string, seq: number];

/** The writer's answers. */
export type FromWriter =
  | { type: 'started' }
  | { type: 'ready'; sessionId: string }
  | { type: 'done'; wallMs: number; cpuMs: number; turns: AppendedTurn[] }
  | { type: 'failed'; error: string };

/**
 * Turns each writer appends before `ready`: connections opened and code
 * optimised, outside the measure (`BENCH_PG_WARM_UP`). V8 optimises a
 * function called once per append only after many appends, and until then
 * an append costs a few times its CPU: with too few warm-ups, a row of many
 * writers, each timing only its share of the row, would time mostly cold
 * code, and a row of one writer mostly warm code. The driver's and the
 * store's functions called once an append are first optimised between the
 * 2,000th and the 5,000th append (bench/README.md).
 */
const WARM_UP = Number(process.env.BENCH_PG_WARM_UP ?? 6_000);

/** One writer, ready to append the next turn; `close` ends its connections. */
interface Writer {
  sessionId: string;
  append(content: string): Promise<AppendedTurn>;
  close(): Promise<void>;
}

async function agentstateWriter(url: string, schema: string, sessionId: string | undefined): Promise<Writer> {
  const provider = await openPostgres(url, { schema, max: 2 });
  const session = sessionId ?? (await provider.sessions.create({ title: 'bench' })).id;
  return {
    sessionId: session,
    append: async (content) => {
      const turn = await provider.sessions.appendTurn({ sessionId: session, role: 'user', content });
      return [turn.id, turn.seq];
    },
    close: () => provider.close(),
  };
}

async function mastraWriter(url: string, schema: string, writer: number): Promise<Writer> {
  const { PostgresStore } = await mastra!;
  const store = new PostgresStore({ id: `bench-${writer}`, connectionString: url, schemaName: schema, max: 2 });
  await store.init();
  const memory = store.stores.memory!;
  const now = new Date();
  const thread = { id: `thread-${writer}`, resourceId: 'bench', title: 'bench', createdAt: now, updatedAt: now, metadata: {} };
  await memory.saveThread({ thread });
  let n = 0;
  return {
    sessionId: thread.id,
    append: async (text) => {
      const id = `m-${writer}-${n++}`;
      await memory.saveMessages({
        messages: [
          { id, role: 'user', createdAt: new Date(), threadId: thread.id, resourceId: 'bench', content: { format: 2, parts: [{ type: 'text', text }] } },
        ],
      });
      return [id, 0];
    },
    close: () => store.close(),
  };
}

/** When this writer's last wake-up went (ms since the epoch). */
let lastWake = 0;

/** Sends statements in one round trip, as the store's write transactions do (database.ts `pipelined`); the rows of each. */
type Query = (statements: readonly (readonly [text: string, values?: readonly unknown[]])[]) => Promise<unknown[][]>;

/** The turns' columns, as the store's row codec lists them (core's `TURN_COLUMNS`), then the lexemes. */
const TURN_COLUMNS =
  'session_id, seq, id, role, content, parts, metadata, created_at, sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, deleted, appended_hlc, search';

/** `$1, …, $n`. */
const place = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');

/** The texts of {@link rawAppend}'s statements in `schema`, made once, as the store makes its own. */
function rawTexts(schema: string) {
  const t = (table: string) => `"${schema}".${table}`;
  return {
    lock: `SELECT pg_advisory_xact_lock_shared(1634953331, hashtext('"${schema}"'))`,
    session: `SELECT id, title, model, scope_key, metadata, created_at, updated_at, summary, fields_clock, sync_version, origin_instance_id, hlc_wall, hlc_counter, last_writer_id, deleted FROM ${t('sessions')} WHERE id = $1 FOR UPDATE`,
    lastTurn: `SELECT (SELECT seq FROM ${t('turns')} WHERE session_id = $1 ORDER BY seq DESC LIMIT 1) AS last_turn, CASE WHEN EXISTS (SELECT 1 FROM ${t('sessions')} WHERE id = $1 AND NOT deleted)
    THEN nextval('${t('positions')}') END AS position`,
    event: `INSERT INTO ${t('events')} (stream, seq, type, time, schema_version, payload, actor, trace_id, span_id, causation_id, origin_instance_id, principal, checksum, validated, origin, origin_seq, origin_time) VALUES (${place(17)})`,
    // The session's bump, the turn's upsert and the history index in one statement, as projection.ts `apply` sends them.
    append: `WITH bumped AS (UPDATE ${t('sessions')} SET sync_version = sync_version + 1, hlc_wall = $11, hlc_counter = $12,
        last_writer_id = CASE WHEN origin_instance_id = $17 THEN '' ELSE $17 END,
        updated_at = CASE WHEN updated_at COLLATE "C" >= $8 THEN updated_at ELSE $8 END WHERE id = $1 AND NOT deleted),
      indexed AS (INSERT INTO ${t('record_events')} (record_id, seq) SELECT r.id, r.seq FROM unnest($18::text[], $19::bigint[]) AS r (id, seq) ON CONFLICT DO NOTHING),
      forgotten AS (DELETE FROM ${t('vectors')} WHERE target = 'turn' AND record_id = $3
          AND EXISTS (SELECT 1 FROM ${t('turns')} WHERE session_id = $1 AND seq = $2 AND NOT deleted))
        INSERT INTO ${t('turns')} (${TURN_COLUMNS}) VALUES (${place(15)}, array_to_tsvector($16::text[])) ON CONFLICT (session_id, seq) DO UPDATE SET ${TURN_COLUMNS.split(
          ', ',
        )
          .slice(2)
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`,
    // A turn to a session known from this writer's last append (known-append.ts): checked under the session's lock,
    // the position taken and the checksum finished in the insert, the session's bump, history index and turn beside it.
    knownLock: `SELECT 1 FROM ${t('sessions')} WHERE id = $1 FOR UPDATE`,
    known: `WITH placed AS (
        INSERT INTO ${t('events')} (stream, seq, type, time, schema_version, payload, actor, trace_id, span_id, causation_id, origin_instance_id, principal, checksum, validated)
        SELECT $19, p.seq, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, '3:' || encode(sha256(convert_to(p.seq || ':' || $30, 'UTF8')), 'base64'), true
        FROM (SELECT CASE WHEN EXISTS (SELECT 1 FROM ${t('sessions')} WHERE id = $1 AND NOT deleted AND sync_version = $31 AND hlc_wall = $32 AND hlc_counter = $33)
          AND coalesce((SELECT seq FROM ${t('turns')} WHERE session_id = $1 ORDER BY seq DESC LIMIT 1), 0) = $34
          THEN nextval('${t('positions')}') END AS seq) p
        RETURNING seq),
      bumped AS (UPDATE ${t('sessions')} SET sync_version = sync_version + 1, hlc_wall = $11, hlc_counter = $12,
        last_writer_id = CASE WHEN origin_instance_id = $17 THEN '' ELSE $17 END,
        updated_at = CASE WHEN updated_at COLLATE "C" >= $8 THEN updated_at ELSE $8 END WHERE id = $1 AND NOT deleted),
      indexed AS (INSERT INTO ${t('record_events')} (record_id, seq) SELECT r.id, placed.seq FROM placed, unnest($18::text[]) AS r (id) ON CONFLICT DO NOTHING),
      turned AS (INSERT INTO ${t('turns')} (${TURN_COLUMNS}) VALUES (${place(15)}, array_to_tsvector($16::text[])))
      SELECT seq FROM placed`,
    wake: `SELECT set_config('synchronous_commit', 'off', true), pg_notify('agentstate_events', $1)
  WHERE NOT pg_try_advisory_xact_lock(${LISTENERS_LOCK_KEY}, hashtext('"${schema}"')) AND pg_notification_queue_usage() < 0.5`,
  };
}

/** What a raw writer's last append left of its session: the check a known append sends. */
interface RawKnown {
  syncVersion: number;
  wall: number;
  lastTurn: number;
}

/**
 * The statements of one `appendTurn`, as the PostgreSQL store sends them
 * for an existing session. IT MUST MIRROR THE STORE'S WRITE PATH
 * (packages/postgres/src): re-align it whenever that path changes, or the
 * agentstate/raw ratio measures nothing. Each round trip is one pipeline of
 * plain statements its connection prepared once (database.ts
 * `TransactionSql`, `pipelined`). To a session this writer's last append
 * left `known` (known-append.ts), one round trip: the writers' lock taken
 * shared (writers-lock.ts), the session locked `FOR UPDATE`, the checked
 * append (the position taken and the checksum finished by the server), one
 * transaction without `BEGIN` and `COMMIT`, committed at the pipeline's
 * end; or, when the last wake-up went 10 ms ago or more, between `BEGIN` and
 * `COMMIT`, then the subscribers' wake-up, a notification only while a
 * listener is registered (`Database.transaction`). Else, as the first
 * append, two: `BEGIN` and the same
 * opening, the session locked and read, then its last turn number read after
 * the lock and, in the same statement, the next position when the session
 * is live (lookups.ts `session`); then the event (log.ts), the session's
 * bump, the turn's upsert and the history index in one statement
 * (projection.ts `apply`), `COMMIT` and the wake-up. The store's one more
 * wake-up after a busy interval, sent through its pool, is left out. What
 * the store computes besides (stamping, validation, checksums) is reduced
 * here to the least that fills the same columns. Returns the turn's number
 * and what it leaves known.
 */
async function rawAppend(
  q: Query,
  texts: ReturnType<typeof rawTexts>,
  schema: string,
  instance: string,
  sessionId: string,
  id: string,
  content: string,
  known: RawKnown | undefined,
): Promise<RawKnown> {
  try {
    let turnSeq: number;
    let seq: number | undefined;
    let syncVersion: number;
    if (known === undefined) {
      const [, , [session], [looked]] = (await q([['BEGIN'], [texts.lock], [texts.session, [sessionId]], [texts.lastTurn, [sessionId]]])) as [
        unknown,
        unknown,
        { sync_version: number }[],
        { last_turn: number | null; position: number }[],
      ];
      turnSeq = (looked!.last_turn ?? 0) + 1;
      seq = looked!.position;
      syncVersion = session!.sync_version;
    } else {
      turnSeq = known.lastTurn + 1;
      syncVersion = known.syncVersion;
    }
    const now = new Date().toISOString();
    const wall = Date.now();
    const payload = JSON.stringify({
      turn: { id, sessionId, seq: turnSeq, role: 'user', createdAt: now, originInstanceId: instance, updatedHlc: { wall, counter: 0 }, content },
    });
    const wakes = wall - lastWake >= 10;
    if (wakes) lastWake = wall;
    const digest = createHash('sha1').update(`state${payload}`).digest('base64');
    // A new turn has no append clock of its own (`appended_hlc`): its HLC is its append's.
    const turn = [sessionId, turnSeq, id, 'user', content, '', '{}', now, 1, instance, wall, 0, '', false, null, [...new Set(content.split(' '))], instance];
    const ending = [['COMMIT'], ...(wakes ? [[texts.wake, [schema]] as const] : [])] as const;
    if (known === undefined) {
      const checksum = createHash('sha256').update(`${seq}:${digest}`).digest('base64');
      await q([
        [texts.event, ['state', seq, 'session.turn_appended', now, 3, payload, null, null, null, null, null, null, `3:${checksum}`, true, null, null, null]],
        [texts.append, [...turn, [sessionId, id], [seq, seq]]],
        ...ending,
      ]);
    }
    // Without a wake-up to carry after its COMMIT, one transaction without BEGIN and COMMIT, committed at the pipeline's end.
    else
      await q([
        ...(wakes ? [['BEGIN'] as const] : []),
        [texts.lock],
        [texts.knownLock, [sessionId]],
        [
          texts.known,
          [
            ...turn,
            [sessionId, id],
            'state',
            'session.turn_appended',
            now,
            3,
            payload,
            null,
            null,
            null,
            null,
            null,
            null,
            digest,
            known.syncVersion,
            known.wall,
            0,
            known.lastTurn,
          ],
        ],
        ...(wakes ? ending : []),
      ]);
    return { syncVersion: syncVersion + 1, wall, lastTurn: turnSeq };
  } catch (error) {
    await q([['ROLLBACK']]);
    throw error;
  }
}

async function rawWriter(url: string, schema: string, writer: number, sessionId: string | undefined): Promise<Writer> {
  // The schema and the session as the store makes them; then one plain client.
  const provider = await openPostgres(url, { schema, max: 1 });
  const session = sessionId ?? (await provider.sessions.create({ title: 'bench' })).id;
  await provider.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ origin_instance_id: string }>(`SELECT origin_instance_id FROM "${schema}".sessions WHERE id = $1`, [session]);
  const instance = rows[0]!.origin_instance_id;
  const q: Query = (statements) => pipelined(client, statements);
  const texts = rawTexts(schema);
  let n = 0;
  let known: RawKnown | undefined;
  return {
    sessionId: session,
    append: async (content) => {
      const id = `raw-${writer}-${n++}`;
      known = await rawAppend(q, texts, schema, instance, session, id, content, known);
      return [id, known.lastTurn];
    },
    close: () => client.end(),
  };
}

/** Answers the parent; resolves once the message is sent. */
const send = (message: FromWriter) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

/** What this process writes with: its first argument. */
const kind = process.argv[2] as WriterKind;
// Loaded before `started` (loading is most of a set-up), in every writer at once.
const mastra = kind === 'mastra' ? import('@mastra/pg') : undefined;
await mastra;

let writer: Writer | undefined;
let setup: Extract<ToWriter, { type: 'setup' }> | undefined;
const turns: AppendedTurn[] = [];
let next: () => string = () => '';

async function onMessage(message: ToWriter): Promise<void> {
  if (message.type === 'setup') {
    setup = message;
    next = turnTexts(1_000 + message.writer);
    const { url, schema } = message;
    writer =
      kind === 'agentstate'
        ? await agentstateWriter(url, schema, message.sessionId)
        : kind === 'mastra'
          ? await mastraWriter(url, schema, message.writer)
          : await rawWriter(url, schema, message.writer, message.sessionId);
    for (let i = 0; i < WARM_UP; i += 1) turns.push(await writer.append(next()));
    await send({ type: 'ready', sessionId: writer.sessionId });
  } else if (message.type === 'go') {
    const contents = Array.from({ length: setup!.count }, next);
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (const content of contents) turns.push(await writer!.append(content));
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    await send({ type: 'done', wallMs, cpuMs: (used.user + used.system) / 1000, turns });
  } else {
    await writer?.close();
    // Mastra's store may leave timers behind: the writer is done.
    process.exit(0);
  }
}

process.on('message', (message: ToWriter) => {
  onMessage(message).catch(async (error: unknown) => {
    await send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  });
});
// A message sent before this process listens would be lost: the parent waits for this one first.
await send({ type: 'started' });
