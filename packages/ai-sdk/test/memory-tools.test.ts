import { createInMemoryProvider, NotFoundError, type Provider } from '@agentstate/core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { memoryTools } from '../src/index.js';

type Tools = ReturnType<typeof memoryTools>;

/** Runs a tool as the SDK would, with the input its schema accepted. */
async function run<K extends keyof Tools>(tools: Tools, name: K, input: unknown): Promise<unknown> {
  const t = tools[name];
  const parsed = (t.inputSchema as unknown as z.ZodType).parse(input);
  const execute = t.execute as unknown as (input: unknown, options: { toolCallId: string; messages: [] }) => Promise<unknown>;
  return execute(parsed, { toolCallId: 'call', messages: [] });
}

let provider: Provider;
let ana: Tools;
let bob: Tools;

beforeEach(() => {
  provider = createInMemoryProvider();
  ana = memoryTools({ provider, scope: ['user', 'ana'] });
  bob = memoryTools({ provider, scope: ['user', 'bob'] });
});

describe('memoryTools', () => {
  it('offers the six tools, with descriptions and zod input schemas', () => {
    expect(Object.keys(ana).sort()).toEqual(['forget', 'recall', 'recordSkillOutcome', 'remember', 'searchSkills', 'update']);
    for (const t of Object.values(ana)) expect(t.description).toBeTruthy();
    expect((ana.remember.inputSchema as unknown as z.ZodType).safeParse({}).success).toBe(false);
  });

  it('remembers in the scope, replaces a keyed fact, and recalls by question', async () => {
    const first = (await run(ana, 'remember', { content: 'Ana likes green tea', key: 'drink', kind: 'preference' })) as { id: string };
    const second = (await run(ana, 'remember', { content: 'Ana likes black coffee', key: 'drink' })) as { id: string; kind: string };
    expect(second.id).toBe(first.id);
    expect(second.kind).toBe('preference');
    const item = await provider.memory.get(first.id);
    expect(item.scope).toEqual(['user', 'ana']);
    expect(item.source).toBe('ai-sdk');
    const recalled = (await run(ana, 'recall', { query: 'what does Ana drink? coffee' })) as { memories: { content: string; score: number }[] };
    expect(recalled.memories.map((m) => m.content)).toEqual(['Ana likes black coffee']);
    expect(await run(bob, 'recall', {})).toEqual({ memories: [] });
  });

  it('updates and forgets only the facts of its own scope', async () => {
    const { id } = (await run(ana, 'remember', { content: 'Ana lives in Lisbon' })) as { id: string };
    await expect(run(bob, 'update', { id, content: 'Bob owns this now' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(run(bob, 'forget', { id })).rejects.toBeInstanceOf(NotFoundError);
    expect((await provider.memory.get(id)).content).toBe('Ana lives in Lisbon');

    expect(await run(ana, 'update', { id, content: 'Ana lives in Porto' })).toMatchObject({ id, content: 'Ana lives in Porto' });
    expect(await run(ana, 'forget', { id })).toEqual({ forgotten: id });
    await expect(provider.memory.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('searches the global and the user skills, and records outcomes on the most specific one', async () => {
    await provider.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'npm run deploy', tags: ['ops'] });
    await provider.skills.upsert({ slug: 'rollback', name: 'Roll back', body: 'git revert, then deploy', scope: ['user', 'ana'] });
    await provider.skills.upsert({ slug: 'secret', name: 'Deploy secretly', body: 'bob only', scope: ['user', 'bob'] });
    const found = (await run(ana, 'searchSkills', { query: 'deploy' })) as { skills: { slug: string }[] };
    expect(found.skills.map((s) => s.slug).sort()).toEqual(['deploy', 'rollback']);

    expect(await run(ana, 'recordSkillOutcome', { slug: 'rollback', success: true })).toMatchObject({ slug: 'rollback', uses: 1, wins: 1 });
    expect(await run(ana, 'recordSkillOutcome', { slug: 'deploy', success: false })).toMatchObject({ slug: 'deploy', uses: 1, wins: 0 });
    await expect(run(ana, 'recordSkillOutcome', { slug: 'secret', success: true })).rejects.toBeInstanceOf(NotFoundError);
  });
});
