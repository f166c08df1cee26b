/**
 * An export of a PostgreSQL schema carries its retention policies and its
 * purges: imported into an empty schema, the policies, the purge event and
 * the erased payloads come back, and the copy exports to the same bytes.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ExportFormatError, exportLog } from '@agentstate/core';
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

  it("refuses an export whose erasedBy names a purge that erased none of the event's records, and imports nothing", async () => {
    const source = await fresh();
    cleanups.push(source.close);
    const p = source.provider;
    await p.memory.write({ content: 'Tamarindal fact' });
    const other = await p.memory.write({ content: 'another fact' });
    const purged = await p.purge({ id: other.id, reason: 'request 10' });
    const events = (await exportOf(p.log))
      .split('\n')
      .slice(0, -2)
      .map((line) => JSON.parse(line) as LogEvent);
    // The intact first event marked as erased by that purge, under a trailer recomputed to match, as a forger would.
    events[0] = { ...events[0]!, payload: { ...(events[0]!.payload as object), erasedBy: purged.seq } };
    const lines = events.map(exportLine);
    const sha256 = createHash('sha256')
      .update(lines.map((l) => `${l}\n`).join(''))
      .digest('hex');
    const schema = freshSchema('forged');
    cleanups.push(() => dropSchema(source.url, schema));
    const refused = importPostgres(source.url, [...lines, JSON.stringify({ trailer: { events: lines.length, sha256 } })], { schema });
    await expect(refused).rejects.toThrow(ExportFormatError);
    await expect(refused).rejects.toThrow(`line ${purged.seq}: event 1 is marked erased by ${purged.seq}, which purged none of its records`);
    const copy = await openPostgres(source.url, { schema, max: 2 });
    try {
      expect(await copy.log.head('state')).toBe(0);
    } finally {
      await copy.close();
    }
  });
});
