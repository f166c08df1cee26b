/**
 * The write path's round trips (issue 29, "few round trips"): a write
 * transaction sends what nobody reads together with the next statement that
 * returns rows, in one pipeline of statements each connection prepares once
 * (a text of several statements: one simple query, values written in as
 * literals). These tests hold both to the parameters they stand for, the errors of waiting
 * statements to the statement that carries them, and an `appendTurn` to two
 * round trips: the look-ups with the lock and the position, then the writes with
 * the `COMMIT` and the subscribers' wake-up. Its session look-up and turn writes are plain statements the
 * connection prepared once, so a writer's session plans them once. A wake-up owed for a busy interval rides on the next commit; no timer
 * runs while none is owed. Reads outside a transaction go as the same pipeline on a connection of the pool, so their
 * statements too are prepared once per connection, and prepared again when a table's columns changed under them.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError, createInMemoryProvider, type MemoryItem, NotFoundError, STATE_STREAM, sync } from '@agentstate/core';
import { Database, openPool } from '../src/database.js';
import { openPostgres, type PostgresProvider } from '../src/index.js';
import { Projection } from '../src/projection.js';
import { freshSchema, testServer } from './cluster.js';
import { fresh } from './helpers.js';

/** Text PostgreSQL stores: any string without NUL. */
const arbText = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replaceAll('\u0000', ''));

/**
 * Records every round trip on the driver's own client (each is one call of `query`) until `stop`: its text, the
 * statements of a pipeline joined by `;\n`.
 */
function recordRoundTrips(onSend?: (text: string) => void): { sent: string[]; stop: () => void } {
  const query = pg.Client.prototype.query;
  const sent: string[] = [];
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    const config = args[0] as string | { text: string; statements?: readonly (readonly [string])[] };
    const text = typeof config === 'string' ? config : (config.statements?.map(([statement]) => statement).join(';\n') ?? config.text);
    sent.push(text);
    onSend?.(text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return { sent, stop: () => (pg.Client.prototype.query = query) };
}

/** Whether a round trip is a wake-up sent alone, in a transaction of its own. */
const alone = (text: string): boolean => text.startsWith("SELECT set_config('synchronous_commit'");

/**
 * Runs `calls` twice, rounds 1 and 2, on a provider over an application's pool of one connection (what it prepared is
 * read back on it), and expects the second round to send more than `atLeast` statements, each one the connection
 * prepared before.
 */
async function expectOnlyPrepared(
  url: string,
  schema: string,
  atLeast: number,
  calls: (p: PostgresProvider, round: number) => Promise<unknown>,
): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const p = await openPostgres(pool, { schema });
  const recorded = recordRoundTrips();
  try {
    await calls(p, 1);
    recorded.sent.length = 0;
    await calls(p, 2);
    recorded.stop();
    const sent = recorded.sent.filter((text) => !alone(text)).flatMap((text) => text.split(';\n'));
    expect(sent.length).toBeGreaterThan(atLeast);
    const prepared = new Set((await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((row) => row.statement));
    expect(sent.filter((text) => !prepared.has(text))).toEqual([]);
  } finally {
    recorded.stop();
    await p.close();
    await pool.end();
  }
}

describe('a write transaction', () => {
  let db: Database;
  let table: string;
  let url: string;

  beforeAll(async () => {
    ({ url } = await testServer());
    const { pool } = openPool(url, { max: 2 });
    const schema = freshSchema();
    db = new Database(pool, schema, true);
    await db.rows(`CREATE SCHEMA "${schema}"`);
    table = db.t('items');
    await db.rows(`CREATE TABLE ${table} (id int PRIMARY KEY, label text)`);
  });

  afterAll(async () => {
    await db.rows(`DROP SCHEMA "${db.schema}" CASCADE`);
    await db.close();
  });

  it('property: a value written in as a literal, or bound in a pipeline, reads back as the same value sent as a parameter', async () => {
    const arbValues = fc.tuple(
      arbText,
      fc.array(fc.option(arbText, { nil: null }), { maxLength: 5 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(arbValues, async (values) => {
        const text = 'SELECT $1::text AS text, $2::text[] AS array, $3::float8 AS double, $4::int AS int, $5::boolean AS bool, $6::text AS missing';
        const sent = [...values, null];
        const asParameters = await db.rows(text, sent);
        // A text of several statements takes the batch as one simple query: every value written in as a literal.
        const [, asLiterals] = await db.transaction((sql) => sql.batch([['SELECT 1; SELECT 2'], [text, sent]]));
        // Else the batch goes as one pipeline, each statement prepared once and bound to its values.
        const [, pipelined] = await db.transaction((sql) => sql.batch([['SELECT 1'], [text, sent]]));
        expect([asLiterals, pipelined]).toEqual([asParameters, asParameters]);
      }),
      { numRuns: 150 },
    );
  });

  it('sends the statements that wait with the next one, which fails with their error; a failed transaction leaves nothing, and its connection goes on', async () => {
    // One connection: the second transaction runs where the first failed.
    const one = new Database(openPool(url, { max: 1 }).pool, db.schema, true);
    const write = (ids: [number, number]) =>
      one.transaction(async (sql) => {
        await sql.exec(`INSERT INTO ${table} VALUES ($1, $2)`, [ids[0], "it's"]);
        await sql.exec(`INSERT INTO ${table} VALUES ($1, $2)`, [ids[1], 'again']);
        return sql.rows('SELECT 1');
      });
    try {
      await expect(write([1, 1])).rejects.toBeInstanceOf(ConflictError);
      // What the failed pipeline may not have prepared is prepared again; it left no row, or the first insert would collide.
      await write([1, 2]);
      expect(await db.rows(`SELECT label FROM ${table} ORDER BY id`)).toEqual([{ label: "it's" }, { label: 'again' }]);
    } finally {
      await db.rows(`DELETE FROM ${table}`);
      await one.close();
    }
  });

  it('prepares again the statements of a connection whose table changed its column types under them, instead of failing the read', async () => {
    // One connection: the reads run where the statements were prepared before the change.
    const one = new Database(openPool(url, { max: 1 }).pool, db.schema, true);
    const retyped = db.t('retyped');
    const read = `SELECT id, n FROM ${retyped} WHERE id = $1`;
    const count = `SELECT count(n) AS c, max(n) AS top FROM ${retyped}`;
    try {
      await db.script(`CREATE TABLE ${retyped} (id int PRIMARY KEY, n int); INSERT INTO ${retyped} VALUES (1, 2)`);
      expect(await one.batch([[read, [1]], [count]])).toEqual([[{ id: 1, n: 2 }], [{ c: 1, top: 2 }]]);
      // Another process's upgrade: the server refuses the prepared reads (`cached plan must not change result type`).
      await db.script(`ALTER TABLE ${retyped} ALTER COLUMN n TYPE text`);
      expect(await one.rows(read, [1])).toEqual([{ id: 1, n: '2' }]);
      // The other statement of the connection was prepared again too: a transaction, which cannot send it again, runs it.
      expect(await one.transaction((sql) => sql.rows(count))).toEqual([{ c: 1, top: '2' }]);
    } finally {
      await db.script(`DROP TABLE ${retyped}`);
      await one.close();
    }
  });

  it('commits what waits with the COMMIT, however many statements wait', async () => {
    await db.transaction(async (sql) => {
      for (let id = 1; id <= 200; id += 1) await sql.exec(`INSERT INTO ${table} VALUES ($1, $2)`, [id, `label ${id}`]);
    });
    expect(await db.rows(`SELECT count(*)::int AS n, min(label) AS first FROM ${table}`)).toEqual([{ n: 200, first: 'label 1' }]);
    await db.rows(`DELETE FROM ${table}`);
  });
});

describe('appendTurn', () => {
  it('costs two round trips on its connection to a session the process has not appended to: the look-ups with the lock and the position, then the writes with the COMMIT and the wake-up; one round trip after', async () => {
    const { provider, url, schema, close } = await fresh();
    const session = await provider.sessions.create({ title: 'round trips' });
    await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' });
    // A provider of its own: no wake-up of its has gone yet, so its first commit carries one.
    const writer = await openPostgres(url, { schema, max: 2 });
    const recorded = recordRoundTrips();
    try {
      await writer.sessions.appendTurn({ sessionId: session.id, role: 'assistant', content: 'second' });
      recorded.stop();
      // The other provider's wake-up may go meanwhile, alone.
      const turn = recorded.sent.filter((text) => !alone(text));
      expect(turn).toHaveLength(2);
      // The session's lock, then its last turn and the position, taken after the lock in a statement of their own,
      // only when the session is live.
      expect(turn[0]).toMatch(
        /^BEGIN;\nSELECT pg_advisory_xact_lock_shared\([^;]*;\nSELECT id, [^;]* FROM "[^"]+"\.sessions WHERE id = \$1 FOR UPDATE;\nSELECT \(SELECT seq FROM [^;]* AS last_turn, CASE WHEN EXISTS \([^;]*AND NOT deleted\)\s+THEN nextval\('"[^"]+"\.positions'\) END AS position$/,
      );
      // The event, then the session's bump, the turn's upsert and the history index in one statement; the wake-up
      // follows the COMMIT, in a transaction of its own.
      expect(turn[1]).toMatch(
        /^INSERT INTO "[^"]+"\.events [^;]*;\nWITH bumped AS \(UPDATE "[^"]+"\.sessions [^;]*indexed AS \(INSERT INTO "[^"]+"\.record_events [^;]*INSERT INTO "[^"]+"\.turns [^;]*;\nCOMMIT;\nSELECT set_config\([^;]*pg_notify\([^;]*$/,
      );
      // Its next append to the session decides on what this one left: the lock, the session's, and one statement
      // that checks the session under it, takes the position, stores the event and projects it, in one round trip:
      // one transaction without BEGIN and COMMIT, committed at the pipeline's end, or, to carry a wake-up after it, with them.
      const again = recordRoundTrips();
      const third = await writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'third' });
      again.stop();
      const known = again.sent.filter((text) => !alone(text));
      expect(known).toHaveLength(1);
      expect(known[0]).toMatch(
        /^(BEGIN;\n)?SELECT pg_advisory_xact_lock_shared\([^;]*;\nSELECT 1 FROM "[^"]+"\.sessions WHERE id = \$1 FOR UPDATE;\nWITH placed AS \(\s*INSERT INTO "[^"]+"\.events [^;]*nextval\('"[^"]+"\.positions'\)[^;]*bumped AS \(UPDATE "[^"]+"\.sessions [^;]*indexed AS \(INSERT INTO "[^"]+"\.record_events [^;]*turned AS \(INSERT INTO "[^"]+"\.turns [^;]*SELECT seq FROM placed(;\nCOMMIT;\nSELECT set_config\([^;]*)?$/,
      );
      expect(known[0]!.startsWith('BEGIN'), 'BEGIN and COMMIT together, or neither').toBe(known[0]!.includes('COMMIT'));
      const events = await provider.log.read({ stream: STATE_STREAM });
      expect(third.seq).toBe(3);
      expect(events.at(-1)).toMatchObject({ type: 'session.turn_appended', payload: { turn: { id: third.id, seq: 3 } } });
    } finally {
      recorded.stop();
      await writer.close();
      await close();
    }
  });

  it('tries again a write whose prepared look-up another process made stale, which then succeeds', async () => {
    const { provider, url, schema, close } = await fresh();
    // One connection: the second append runs where the first prepared its statements.
    const writer = await openPostgres(url, { schema, max: 1 });
    try {
      const session = await writer.sessions.create({ title: 'retyped' });
      await writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' });
      // Another process's change of a column's type: the server refuses the prepared session look-up once.
      const other = new Database(openPool(url, { max: 1 }).pool, schema, true);
      await other.script(`ALTER TABLE "${schema}".sessions ALTER COLUMN title TYPE varchar`);
      await other.close();
      const second = await writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'second' });
      expect(second.seq).toBe(2);
      expect((await provider.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['first', 'second']);
    } finally {
      await writer.close();
      await close();
    }
  });

  it('prepares again what an application sharing the pool dropped from its connection (DEALLOCATE ALL): the next read and write succeed', async () => {
    const { provider, url, schema, close } = await fresh();
    // The application's pool of one connection: what the provider prepared is dropped where it reads and writes next.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const shared = await openPostgres(pool, { schema });
    try {
      const session = await shared.sessions.create({ title: 'shared pool' });
      await shared.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'first' });
      expect((await shared.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['first']);
      await pool.query('DEALLOCATE ALL');
      expect((await shared.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['first']);
      await pool.query('DEALLOCATE ALL');
      expect((await shared.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'second' })).seq).toBe(2);
      expect((await provider.sessions.turns(session.id)).map((turn) => turn.content)).toEqual(['first', 'second']);
    } finally {
      await shared.close();
      await pool.end();
      await close();
    }
  });

  it('sends only statements its connection prepared before: a later append parses and plans none', async () => {
    const { provider, url, schema, close } = await fresh();
    try {
      const session = await provider.sessions.create({ title: 'prepared' });
      // The second round's append, to a session the first left known: the writers' lock, the session's and the append.
      await expectOnlyPrepared(url, schema, 2, (writer, round) =>
        writer.sessions.appendTurn({ sessionId: session.id, role: round === 1 ? 'user' : 'assistant', content: round === 1 ? 'first' : 'second' }),
      );
    } finally {
      await close();
    }
  });

  it('sends only prepared statements for a second keyed memory write, skill upsert, outcome and checkpoint: its look-ups name their columns', async () => {
    const { provider, url, schema, close } = await fresh();
    try {
      const skill = await provider.skills.upsert({ slug: 'deploy', body: 'ship it' });
      await expectOnlyPrepared(url, schema, 6, async (p, round) => {
        await p.memory.write({ content: `fact ${round}`, key: 'fact' });
        await p.skills.upsert({ slug: 'deploy', body: `ship it ${round}` });
        await p.skills.recordOutcome(skill.id, { success: true });
        await p.checkpoints.put({ threadId: 't', namespace: '', checkpointId: `0${round}`, checkpoint: { v: round }, metadata: {} });
      });
    } finally {
      await close();
    }
  });

  it('takes no position for a session not live, nor with the look-up when the caller names the turn: a refused append leaves no gap', async () => {
    const { provider, close } = await fresh();
    try {
      const live = await provider.sessions.create({ title: 'live' });
      const gone = await provider.sessions.create({ title: 'gone' });
      await provider.sessions.delete(gone.id);
      await expect(provider.sessions.appendTurn({ sessionId: gone.id, role: 'user', content: 'lost' })).rejects.toBeInstanceOf(NotFoundError);
      await provider.sessions.appendTurn({ sessionId: live.id, id: 'named', role: 'user', content: 'first' });
      await expect(provider.sessions.appendTurn({ sessionId: live.id, id: 'named', role: 'user', content: 'again' })).rejects.toBeInstanceOf(ConflictError);
      await provider.sessions.appendTurn({ sessionId: live.id, role: 'assistant', content: 'second' });
      expect((await provider.log.read({ stream: STATE_STREAM })).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await close();
    }
  });

  it('sends the wake-up a busy interval owes with the next commit, in its round trip, alone only when no commit comes, and arms no timer for commits further apart than the interval', async () => {
    const { provider, url, schema, close } = await fresh();
    const session = await provider.sessions.create({ title: 'one writer' });
    const writer = await openPostgres(url, { schema, max: 2 });
    // The wake-ups' interval and grace run on a clock the test moves, however long an append takes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const recorded = recordRoundTrips();
    const append = (content: string) => writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
    const carried = () => recorded.sent.filter((text) => text.includes('COMMIT;\nSELECT set_config')).length;
    try {
      // Commits 20 ms apart, as each of many writers sharing a machine makes them: each carries a wake-up, and
      // no timer is set to wake the process between them (the pool's idle timers, of 10 s, aside).
      const timers = vi.spyOn(globalThis, 'setTimeout');
      for (let i = 0; i < 5; i += 1) {
        await append(`spaced ${i}`);
        vi.advanceTimersByTime(20);
      }
      expect(timers.mock.calls.filter(([, ms]) => (ms ?? 0) < 1_000)).toEqual([]);
      timers.mockRestore();
      expect(carried()).toBe(5);
      for (let i = 0; i < 200; i += 1) {
        await append(`turn ${i}`);
        vi.advanceTimersByTime(2);
      }
      // 400 ms of appends back to back: one round trip each (the writer's first, to a session it did not know, two),
      // one wake-up per 10 ms, each carried by a commit (the first of its interval), none in a transaction of its own.
      expect(recorded.sent.filter((text) => !alone(text))).toHaveLength(206);
      expect(carried()).toBe(45);
      expect(recorded.sent.filter(alone)).toHaveLength(0);
      // No commit within the grace after the last interval: the wake-up its commits owe goes alone. A commit in
      // the interval it starts is announced, alone, when the writer closes, without waiting out the interval.
      vi.advanceTimersByTime(5);
      await append('last');
      await writer.close();
      expect(recorded.sent.filter(alone)).toHaveLength(2);
      expect(carried()).toBe(45);
    } finally {
      recorded.stop();
      vi.useRealTimers();
      await writer.close();
      await close();
    }
  });

  it('owes the wake-up of an interval that ended while a COMMIT was on its way to the next commit: none goes alone while commits keep coming', async () => {
    const { provider, url, schema, close } = await fresh();
    const session = await provider.sessions.create({ title: 'slow commits' });
    const writer = await openPostgres(url, { schema, max: 2 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // Each round trip that commits without a wake-up (a COMMIT, or a known append sent whole) takes 6 ms of the clock, so every
    // other one ends the interval a wake-up started.
    const recorded = recordRoundTrips((text) => {
      if (text.endsWith('COMMIT') || text.endsWith('SELECT seq FROM placed')) vi.advanceTimersByTime(6);
    });
    try {
      for (let i = 0; i < 10; i += 1) await writer.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i}` });
      // At 0, 12, 24 and 36 ms a commit carries the wake-up; the two commits after each owe theirs to it.
      expect(recorded.sent.filter((text) => text.includes('COMMIT;\nSELECT set_config'))).toHaveLength(4);
      expect(recorded.sent.filter(alone)).toEqual([]);
    } finally {
      recorded.stop();
      vi.useRealTimers();
      await writer.close();
      await close();
    }
  });
});

describe('reads outside a transaction', () => {
  it('send only statements their connection prepared before: a second session list, transcript page, get, recall, search and history plan none', async () => {
    const { provider, url, schema, close } = await fresh();
    try {
      const session = await provider.sessions.create({ title: 'reads' });
      for (const content of ['deploy the dark theme', 'roll back the deploy'])
        await provider.sessions.appendTurn({ sessionId: session.id, role: 'user', content });
      const item = await provider.memory.write({ content: 'the user prefers dark mode' });
      await provider.skills.upsert({ slug: 'deploy', body: 'ship it' });
      await expectOnlyPrepared(url, schema, 8, async (p) => {
        await p.sessions.list();
        await p.sessions.turns(session.id, { limit: 1 });
        await p.memory.get(item.id);
        await p.memory.recall({ query: 'dark', order: 'relevance' });
        await p.memory.recall({ query: 'dark', order: 'recent', limit: 1 });
        await p.skills.search('deploy');
        await p.sessions.search({ query: 'deploy' });
        await p.history(item.id);
      });
    } finally {
      await close();
    }
  });

  it('plan a lexical search for its values on every run, though prepared: never the generic plan the server picks for other reads after their fifth', async () => {
    const { provider, url, schema, close } = await fresh();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const p = await openPostgres(pool, { schema });
    try {
      await provider.memory.writeMany(Array.from({ length: 20 }, (_, i) => ({ content: `dark mode ${i}` })));
      for (let run = 0; run < 8; run += 1) {
        await p.memory.recall({ query: 'dark', limit: 3 });
        await p.sessions.list();
      }
      const plans = async (start: string) =>
        (
          await pool.query<{ generic: number; custom: number }>(
            'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE starts_with(statement, $1)',
            [start],
          )
        ).rows;
      expect(await plans('WITH w AS MATERIALIZED')).toEqual([{ generic: 0, custom: 8 }]);
      // The session list, whose plan its values do not change, is planned once for all.
      expect((await plans(`SELECT id, title`))[0]!.generic).toBeGreaterThan(0);
    } finally {
      await p.close();
      await pool.end();
      await close();
    }
  });
});

describe('a received batch', () => {
  it('appends its events in one statement and folds them together: the records, keys and slugs asked at once, each table written in a few statements', async () => {
    const { provider, close } = await fresh();
    const source = createInMemoryProvider();
    /**
     * The round trips and statements of a sync in one batch of `count` new memory items, each under a key and
     * updated, skills, sessions with a turn and 25 notes an item, on the driver's own client.
     */
    const sent = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        await source.memory.writeMany(Array.from({ length: 25 }, (_, j) => ({ content: `note ${j} of ${i} of ${count}` })));
        const item = await source.memory.write({ content: `fact ${i} of ${count}`, key: `fact-${count}-${i}`, metadata: { i } });
        await source.memory.update(item.id, { content: `fact ${i} of ${count}, updated` });
        await source.skills.upsert({ slug: `skill-${count}-${i}`, body: `how to do ${i}` });
        const session = await source.sessions.create({ title: `session ${i} of ${count}` });
        await source.sessions.appendTurn({ sessionId: session.id, role: 'user', content: `turn ${i}` });
      }
      const recorded = recordRoundTrips();
      try {
        expect((await sync(provider, source, { batchSize: 30 * count })).toA).toBe(30 * count);
      } finally {
        recorded.stop();
      }
      return { roundTrips: recorded.sent.length, statements: recorded.sent.flatMap((text) => text.split(';\n')).length };
    };
    try {
      // The records the batch carries are asked by id in one round trip, before and after the fold (whether a purge
      // left one, and what the merge kept), and the keys and slugs in one statement a kind; a session's turns are
      // read only when a rule asks. The fold's records are written a few statements a table, set-based. So neither
      // the round trips nor the statements grow with the events. Appended and folded alone, an item took five
      // round trips; folded together but written one by one, each record took a statement or three. A batch of
      // more events than a fold reads from the log at once (1,200) is folded in one pass all the same.
      const few = await sent(2);
      const many = await sent(40);
      expect(many.roundTrips).toBeLessThan(few.roundTrips + 10);
      // Folded in passes of 1,000 events, each pass asked and wrote every kind again: 58 statements to 46.
      expect(many.statements).toBeLessThan(few.statements + 5);
    } finally {
      await close();
    }
  });
});

describe('an incremental sync', () => {
  it("of one new event into PostgreSQL costs at most 13 round trips: each vector read once, settled in its round trip, the notes in the batch's transaction", async () => {
    const { provider, close } = await fresh();
    const source = createInMemoryProvider();
    try {
      await provider.memory.write({ content: 'own' });
      await source.memory.write({ content: 'first' });
      await sync(provider, source);
      await source.memory.write({ content: 'new' });
      const recorded = recordRoundTrips();
      try {
        expect((await sync(provider, source)).toA).toBe(1);
      } finally {
        recorded.stop();
      }
      // The policies' head; the vector (the mark in its round trip) and the notes' head; the receive's vector
      // and notes' head; its transaction: the look-ups with the lock, the head with the positions, the rows, the
      // fold's writes with the note's head, the note with the COMMIT; then what the other side lacks. Each vector
      // was read twice a sync, the receive's notes were written after it in transactions of their own: 26.
      const roundTrips = recorded.sent.filter((text) => !alone(text));
      expect(roundTrips.length).toBeLessThanOrEqual(13);
      expect(roundTrips.filter((text) => text.includes('settled_position()'))).toHaveLength(3);
      expect(roundTrips.filter((text) => text === 'BEGIN')).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("a fold's set-based writes", () => {
  it('let a memory item take the key another item of the same batch gives up, whichever the batch lists first', async () => {
    const { provider, url, schema, close } = await fresh();
    const { pool } = openPool(url, { max: 1 });
    const db = new Database(pool, schema, true);
    try {
      const a = await provider.memory.write({ content: 'first', key: 'x' });
      const b = await provider.memory.write({ content: 'second', key: 'y' });
      const next = (item: MemoryItem, key: string): MemoryItem => ({ ...item, key, syncVersion: item.syncVersion + 1 });
      // Written one by one in this order, b's new key collided with a's old one, which a gives up after it.
      await db.transaction((sql) =>
        new Projection(db).putMany(sql, [
          { kind: 'memory', record: next(b, 'x') },
          { kind: 'memory', record: next(a, 'z') },
        ]),
      );
      const rows = await db.rows<{ id: string; key: string }>(`SELECT id, key FROM ${db.t('memory')} WHERE NOT deleted ORDER BY key`);
      expect(rows).toEqual([
        { id: b.id, key: 'x' },
        { id: a.id, key: 'z' },
      ]);
    } finally {
      await db.close();
      await close();
    }
  });
});
