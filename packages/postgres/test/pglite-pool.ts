/**
 * A PGlite database (Postgres in WebAssembly, here with the pgvector
 * extension) behind the few `pg.Pool` methods the provider uses, so
 * `openPostgres` runs on it unchanged. PGlite has one connection: a
 * checked-out client holds it until released, and pool queries wait their
 * turn, as they would for a pool of one.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type pg from 'pg';

/** int8 and numeric as numbers, as the provider's `pg` type parsers give them. */
const parsers = { 20: Number, 1700: Number };

/** A fresh in-memory PGlite with pgvector available (not yet created: the provider creates it). */
export function createPglite(): Promise<PGlite> {
  return PGlite.create({ extensions: { vector } });
}

/** What the fake reads of the provider's pipeline, a `pg.Query` of several statements: its statements, and `pg.Query`'s callback. */
interface Pipeline {
  readonly statements: ReadonlyArray<readonly [text: string, values: unknown[]]>;
  readonly callback: (error: Error | undefined, results?: Array<{ rows: unknown[] }>) => void;
}

/** `db` as a `pg.Pool` of one connection; `end()` leaves it open. */
export function pglitePool(db: PGlite): pg.Pool {
  let tail = Promise.resolve();
  /** Waits for the connection; resolves to the function that hands it on. */
  const acquire = (): Promise<() => void> => {
    let release!: () => void;
    const previous = tail;
    tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    return previous.then(() => release);
  };
  const query = async (config: { text: string; values?: unknown[] } | Pipeline | string) => {
    if (typeof config === 'object' && 'statements' in config) return runPipeline(config);
    const { text, values = [] } = typeof config === 'string' ? { text: config } : config;
    // A statement without parameters may be a script of several (the creation script, a write's batch): the simple
    // protocol runs those, and answers one result each, as `pg` does.
    if (values.length === 0) {
      const results = await db.exec(text, { parsers });
      return results.length === 1 ? { rows: results[0]!.rows } : results.map((result) => ({ rows: result.rows }));
    }
    return { rows: (await db.query(text, values as unknown[], { parsers })).rows };
  };
  /** A pipeline (database.ts): its statements one after another, as PGlite has no pipelining; the rows of each to its callback. */
  const runPipeline = async ({ statements, callback }: Pipeline) => {
    const results: Array<{ rows: unknown[] }> = [];
    try {
      for (const [text, values] of statements) results.push({ rows: (await db.query(text, values, { parsers })).rows });
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(undefined, results);
  };
  const pool = {
    async query(config: { text: string; values?: unknown[] }) {
      const release = await acquire();
      try {
        return await query(config);
      } finally {
        release();
      }
    },
    async connect() {
      const release = await acquire();
      // PGlite runs in this process: its one connection cannot be cut, so a client never emits 'error'.
      const client = {
        query,
        release: () => release(),
        on: () => client,
        removeListener: () => client,
      };
      return client;
    },
    async end() {},
    on() {
      return pool;
    },
  };
  return pool as unknown as pg.Pool;
}
