/** A19–A22: the memory store. */
import { NotFoundError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { GLOBAL } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

export const memoryChecks: ProviderCheck[] = checks([], {
  'A19 memory.write assigns an id': fresh(async (p) => {
    const item = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    expect(typeof item.id).toBe('string');
    expect(item.id.length).toBeGreaterThan(0);
    expect(item).toMatchObject({ kind: 'fact', content: 'the user prefers Go', scope: GLOBAL, source: '', deleted: false, syncVersion: 1 });
    expect(await p.memory.get(item.id)).toEqual(item);
  }),
  'A20 memory.write stores the given scope': fresh(async (p) => {
    const item = await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(item).toMatchObject({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(await p.memory.get(item.id)).toEqual(item);
  }),
  'A21 recall by query and scope': fresh(async (p) => {
    const first = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    const second = await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    expect(await p.memory.recall({ query: 'prefers', limit: 10 })).toEqual([{ ...first, score: 1 }]);
    expect(await p.memory.recall({ query: 'deploys', scope: ['project:x'] })).toEqual([{ ...second, score: 1 }]);
  }),
  'A22 a deleted item is no longer recalled; deleting a missing id is NotFoundError': fresh(async (p) => {
    const first = await p.memory.write({ kind: 'fact', content: 'the user prefers Go' });
    await p.memory.write({ kind: 'fact', content: 'deploys go to Cloudflare', scope: ['project:x'] });
    const tombstone = await p.memory.delete(first.id);
    expect(tombstone).toMatchObject({ id: first.id, deleted: true, content: first.content });
    expect(await p.memory.recall({ query: 'prefers' })).toEqual([]);
    await expectError(() => p.memory.delete('missing'), NotFoundError);
    await expectError(() => p.memory.delete(first.id), NotFoundError);
  }),
});
