/**
 * The row layout PostgreSQL shares with SQLite (core's row codec): a plain
 * text turn's parts and a last writer that is the row's origin are stored
 * as '', records read back as written, and rows that hold the parts and the
 * writer's id themselves (as written before) read the same and verify clean.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../src/index.js';
import { fresh } from './helpers.js';

describe('the PostgreSQL row layout', () => {
  it("stores '' for parts the content gives and for a last writer that is the origin", async () => {
    const { provider: p, url, schema, close } = await fresh({ instanceId: 'instance-a' });
    const s = await p.sessions.create({ title: 'layout' });
    const plain = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'hello' });
    const structured = await p.sessions.appendTurn({
      sessionId: s.id,
      role: 'assistant',
      content: 'hi',
      parts: [
        { type: 'reasoning', text: 'greet back' },
        { type: 'text', text: 'hi' },
      ],
    });
    const item = await p.memory.write({ kind: 'fact', content: 'kept' });
    const other = await openPostgres(url, { schema, max: 2, instanceId: 'instance-b' });
    await other.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'again' });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const turns = await client.query(`SELECT parts, last_writer_id FROM "${schema}".turns ORDER BY seq`);
      expect(turns.rows).toEqual([
        { parts: '', last_writer_id: '' },
        { parts: JSON.stringify(structured.parts), last_writer_id: '' },
        { parts: '', last_writer_id: '' },
      ]);
      expect((await client.query(`SELECT last_writer_id FROM "${schema}".memory`)).rows).toEqual([{ last_writer_id: '' }]);
      expect((await client.query(`SELECT last_writer_id FROM "${schema}".sessions`)).rows).toEqual([{ last_writer_id: 'instance-b' }]);
      expect(await p.sessions.turns(s.id)).toEqual([plain, structured, expect.objectContaining({ lastWriterId: 'instance-b' })]);
      expect(await p.memory.get(item.id)).toEqual(item);
      expect((await p.sessions.get(s.id)).lastWriterId).toBe('instance-b');

      // Rows as they were written before the shared codec: the parts and the writer in full.
      const before = await p.sessions.turns(s.id);
      await client.query(`UPDATE "${schema}".turns SET parts = $1, last_writer_id = origin_instance_id WHERE seq = 1`, [JSON.stringify(plain.parts)]);
      await client.query(`UPDATE "${schema}".memory SET last_writer_id = origin_instance_id`);
      expect(await p.sessions.turns(s.id)).toEqual(before);
      expect(await p.memory.get(item.id)).toEqual(item);
      expect((await p.verify()).problems).toEqual([]);
    } finally {
      await client.end();
      await other.close();
      await close();
    }
  });
});
