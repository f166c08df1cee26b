/** `agentstate memory` for memory that changes: keys, metadata, expiry, update, filtered recall, sweep. */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { fails, ok, okJson } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

interface Item {
  id: string;
  content: string;
  key: string | null;
  metadata: Record<string, unknown>;
  expiresAt: string | null;
  syncVersion: number;
}

describe('agentstate memory (keys, metadata, expiry)', () => {
  const db = tmp.path('memory-model.db');

  it('writes with --key, --meta and --expires; a second write of the key updates the same item', () => {
    const first = okJson<Item>(['memory', 'write', 'dark mode', '--key', 'theme', '--meta', '{"tag":"ui","n":3}', '--db', db]);
    expect(first).toMatchObject({ key: 'theme', metadata: { tag: 'ui', n: 3 }, expiresAt: null, syncVersion: 1 });
    const second = okJson<Item>(['memory', 'write', 'light mode', '--key', 'theme', '--db', db]);
    expect(second).toMatchObject({ id: first.id, content: 'light mode', syncVersion: 2 });
  });

  it('updates with optimistic concurrency and recalls with --where', () => {
    const [item] = okJson<Item[]>(['memory', 'recall', '--where', '{"tag":"ui"}', '--mode', 'lexical', '--db', db]);
    const updated = okJson<Item>(['memory', 'update', item!.id, '--meta', '{"tag":"editor","n":5}', '--sync-version', '2', '--db', db]);
    expect(updated).toMatchObject({ metadata: { tag: 'editor', n: 5 }, syncVersion: 3 });
    expect(fails(1, ['memory', 'update', item!.id, '--content', 'stale', '--sync-version', '2', '--db', db])).toMatch(/syncVersion/);
    expect(okJson<Item[]>(['memory', 'recall', '--where', '{"n":{"$gt":4}}', '--mode', 'lexical', '--db', db]).map((h) => h.id)).toEqual([item!.id]);
    expect(okJson<Item[]>(['memory', 'recall', '--where', '{"n":{"$gt":"4"}}', '--mode', 'lexical', '--db', db])).toEqual([]);
    expect(fails(1, ['memory', 'recall', '--where', '{"n":{"$regex":"x"}}', '--db', db])).toMatch(/where/);
  });

  it('hides an expired fact at once and sweeps it', () => {
    const gone = okJson<Item>(['memory', 'write', 'old news', '--expires', '2000-01-01T00:00:00Z', '--db', db]);
    expect(fails(1, ['memory', 'show', gone.id, '--db', db])).toMatch(/not found|no memory/i);
    expect(okJson<Item[]>(['memory', 'recall', 'old', '--mode', 'lexical', '--db', db])).toEqual([]);
    expect(okJson<{ swept: number }>(['memory', 'sweep', '--db', db])).toEqual({ swept: 1 });
    expect(ok(['memory', 'sweep', '--db', db])).toMatch(/swept 0 expired memory items/);
  });
});
