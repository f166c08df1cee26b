/**
 * An export of a PostgreSQL schema carries its retention policies and its
 * purges: imported into an empty schema, the policies, the purge event and
 * the erased payloads come back, and the copy exports to the same bytes. An
 * export whose times go back is refused whole, and a refused import leaves no
 * new schema behind.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportFormatError, exportLog, formatInstant, STATE_STREAM } from '@agentstate/core';
import type { Log, LogEvent } from '@agentstate/core';
import { exportLine } from '@agentstate/core/backend';
import { importPostgres, openPostgres } from '../src/index.js';
import { dropSchema, freshSchema } from './cluster.js';
import { fresh } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function exportOf(log: Log): Promise<string> {
  let text = '';
  await exportLog(log, (chunk) => {
    text += chunk;
  });
  return text;
}

describe('export and import of the data lifecycle on PostgreSQL', () => {
  it('carries the retention policies, a purge event and the erased payloads, byte for byte', async () => {
    const source = await fresh();
    cleanups.push(source.close);
    const p = source.provider;
    const item = await p.memory.write({ content: 'Sassafrasian secret' });
    await p.memory.update(item.id, { content: 'Sassafrasian secret, revised' });
    await p.retention.set({ record: 'memory', memoryKind: 'scratch', maxAge: '1d', action: 'purge' });
    const purged = await p.purge({ id: item.id, reason: 'request 9' });
    const text = await exportOf(p.log);
    expect(text).not.toContain('Sassafrasian');
    const schema = freshSchema('imp');
    cleanups.push(() => dropSchema(source.url, schema));
    const result = await importPostgres(source.url, text.split('\n').slice(0, -1), { schema });
    expect(result).toMatchObject({ events: purged.seq, trailer: { events: purged.seq + 1 } });
    const copy = await openPostgres(source.url, { schema, max: 2 });
    try {
      expect(await copy.retention.list()).toEqual(await p.retention.list());
      expect(await copy.history(item.id)).toEqual(await p.history(item.id));
      expect(await exportOf(copy.log)).toBe(text);
      expect((await copy.verify()).ok).toBe(true);
    } finally {
      await copy.close();
    }
  });

  it('refuses an export whose event times go back, naming the line, and stores nothing', async () => {
    const source = await fresh();
    cleanups.push(source.close);
    for (const content of ['one', 'two', 'three']) await source.provider.memory.write({ content });
    const events = (await exportOf(source.provider.log)).split('\n').slice(0, -2);
    const before = JSON.parse(events[1]!) as LogEvent;
    const back = exportLine({ ...(JSON.parse(events[2]!) as LogEvent), time: formatInstant(Date.parse(before.time) - 1) });
    const lines = `${events[0]}\n${events[1]}\n${back}\n`;
    const trailer = JSON.stringify({ trailer: { events: 3, sha256: createHash('sha256').update(lines).digest('hex') } });
    const schema = freshSchema('imp');
    cleanups.push(() => dropSchema(source.url, schema));
    const error = await importPostgres(source.url, [...lines.split('\n').slice(0, -1), trailer], { schema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportFormatError);
    expect(error).toMatchObject({
      line: 3,
      message: expect.stringMatching(/^line 3: "time" .* is earlier than .*, the time of the state event before it \(line 2\)/),
    });
    const copy = await openPostgres(source.url, { schema, max: 1 });
    try {
      expect(await copy.log.head(STATE_STREAM)).toBe(0);
    } finally {
      await copy.close();
    }
  });

  it('leaves no new schema behind when it refuses an import', async () => {
    const source = await fresh();
    cleanups.push(source.close);
    await source.provider.memory.write({ content: 'one fact' });
    const lines = (await exportOf(source.provider.log)).split('\n').slice(0, -1);
    const schema = freshSchema('refused');
    cleanups.push(() => dropSchema(source.url, schema));
    // Cut before its trailer, the export is refused.
    await expect(importPostgres(source.url, lines.slice(0, -1), { schema })).rejects.toBeInstanceOf(ExportFormatError);
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    try {
      const found = await client.query('SELECT nspname FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(found.rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
