/** `agentstate sessions update`: the CLI face of `sessions.update` (docs/contract.md, sessions). */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

describe('agentstate sessions update', () => {
  const db = tmp.path('update.db');

  it("changes a session's title, metadata and scope, and leaves its transcript alone", async () => {
    const id = (await ok(['sessions', 'create', '--title', 'Draft', '--metadata', '{"a":1}', '--db', db])).trim();
    await ok(['sessions', 'append', id, '--content', 'hello', '--db', db]);
    expect(await ok(['sessions', 'update', id, '--title', 'Final', '--db', db])).toBe(`updated session ${id} (syncVersion 3)\n`);
    const moved = await okJson(['sessions', 'update', id, '--metadata', '{"b":2}', '--scope', 'project:web', '--sync-version', '3', '--db', db]);
    expect(moved).toMatchObject({ id, title: 'Final', metadata: { b: 2 }, scope: ['project:web'], syncVersion: 4 });
    const shown = await okJson(['sessions', 'show', id, '--db', db]);
    expect(shown.turns.map((t: { content: string }) => t.content)).toEqual(['hello']);
  });

  it('refuses a stale --sync-version, bad metadata and an unknown id, writing nothing', async () => {
    const id = (await ok(['sessions', 'create', '--title', 'Kept', '--db', db])).trim();
    const before = await okJson(['stats', '--db', db]);
    expect(await fails(1, ['sessions', 'update', id, '--title', 'Stale', '--sync-version', '7', '--db', db])).toMatch(/is at syncVersion 1, not 7/);
    expect(await fails(1, ['sessions', 'update', id, '--metadata', '[1]', '--db', db])).toMatch(/--metadata/);
    expect(await fails(1, ['sessions', 'update', '0190a1b2-0000-7000-8000-000000000000', '--title', 'x', '--db', db])).toMatch(/not found/i);
    expect((await okJson(['stats', '--db', db])).head).toBe(before.head);
    expect(await okJson(['sessions', 'show', id, '--db', db])).toMatchObject({ session: { title: 'Kept', syncVersion: 1 } });
  });
});
