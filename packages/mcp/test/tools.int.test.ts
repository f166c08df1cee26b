/**
 * Every tool and resource, against the server with the options of
 * `agentstate-mcp` bound to project `web` (in-process, over the SDK's
 * in-memory transport; stdio and HTTP have tests of their own): the happy paths, and the error results
 * for bad arguments, missing records and conflicts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_NAMES } from '../src/server.js';
import { call, callError, connectInMemory, tempDir } from './helpers.js';

const web = ['project:web'];
let client: Client;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir();
  client = await connectInMemory(['--db', tmp.db, '--scope', 'project:web', '--embedder', 'none']);
});

afterAll(async () => {
  await client?.close();
  tmp?.cleanup();
});

describe('tool list', () => {
  it('introduces itself with its scope', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'agentstate', version: '0.1.0' });
    expect(client.getInstructions()).toMatch(
      /^Durable memory, skills and session transcripts from agentstate, bound to scope project:web\. Calls cannot leave it\./,
    );
  });

  it('offers every tool with schemas and honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'forget',
        'memory_history',
        'namespaces',
        'recall',
        'remember',
        'search_sessions',
        'session_append_turn',
        'session_create',
        'session_delete',
        'session_list',
        'session_read',
        'session_context',
        'session_compact',
        'session_remove_last_turn',
        'session_update',
        'session_replace_suffix',
        'skill_delete',
        'skill_get',
        'skill_record_outcome',
        'skill_save',
        'skill_search',
        'state_diff',
        'update_memory',
        'working_memory_get',
        'working_memory_update',
      ].sort(),
    );
    // The exported list names exactly the tools the server registers.
    expect([...TOOL_NAMES].sort()).toEqual([...byName.keys()].sort());
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
    const readOnly = [
      'recall',
      'skill_search',
      'skill_get',
      'session_read',
      'session_context',
      'session_list',
      'search_sessions',
      'namespaces',
      'state_diff',
      'memory_history',
      'working_memory_get',
    ];
    const destructive = ['forget', 'skill_delete', 'session_delete', 'session_remove_last_turn', 'session_replace_suffix'];
    // Each call of these removes turns that the previous call left: a repeat is not a no-op.
    const repeatable = (name: string) => readOnly.includes(name) || (destructive.includes(name) && !name.startsWith('session_re'));
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(readOnly.includes(tool.name));
      if (!readOnly.includes(tool.name)) expect(tool.annotations?.destructiveHint, tool.name).toBe(destructive.includes(tool.name));
      if (readOnly.includes(tool.name) || destructive.includes(tool.name)) expect(tool.annotations?.idempotentHint, tool.name).toBe(repeatable(tool.name));
    }
    expect(byName.get('remember')!.inputSchema.required).toEqual(['content']);
  });
});

describe('memory', () => {
  it('remembers in the bound scope, with the client as default source', async () => {
    const { item } = await call(client, 'remember', { content: 'The user prefers dark themes', kind: 'preference', full: true });
    expect(item).toMatchObject({
      content: 'The user prefers dark themes',
      kind: 'preference',
      scope: web,
      source: 'mcp:agentstate-test',
      syncVersion: 1,
      deleted: false,
    });
    const own = await call(client, 'remember', { content: 'Deploys go out on Tuesdays', kind: 'fact', source: 'runbook', full: true });
    expect(own.item.source).toBe('runbook');
  });

  it('answers lean records by default: no sync envelope but the syncVersion, no source, no parts that only repeat content', async () => {
    const { item } = await call(client, 'remember', { content: 'Lean answers cost fewer tokens', key: 'lean' });
    expect(Object.keys(item).sort()).toEqual(['content', 'createdAt', 'expiresAt', 'id', 'key', 'kind', 'metadata', 'scope', 'syncVersion', 'updatedAt']);
    const { hits } = await call(client, 'recall', { query: 'lean answers' });
    expect(hits).toEqual([{ ...item, score: 1 }]);
    const { skill } = await call(client, 'skill_save', { slug: 'lean-skill', body: 'b' });
    expect(skill).not.toHaveProperty('updatedHlc');
    expect(skill).toHaveProperty('syncVersion', 1);
    const { session } = await call(client, 'session_create', { title: 'Lean' });
    expect(Object.keys(session).sort()).toEqual(['createdAt', 'id', 'metadata', 'model', 'scope', 'syncVersion', 'title', 'updatedAt']);
    const { turn } = await call(client, 'session_append_turn', { sessionId: session.id, role: 'user', content: 'hello' });
    expect(Object.keys(turn).sort()).toEqual(['content', 'createdAt', 'id', 'metadata', 'role', 'seq', 'sessionId']);
    const whole = await call(client, 'session_read', { sessionId: session.id, full: true });
    expect(whole.turns[0]).toMatchObject({ ...turn, parts: [{ type: 'text', text: 'hello' }], originInstanceId: expect.any(String), deleted: false });
    const { versions } = await call(client, 'memory_history', { id: item.id });
    expect(versions[0].item).toEqual(item);
    await call(client, 'forget', { id: item.id });
    await call(client, 'skill_delete', { skill: 'lean-skill' });
    await call(client, 'session_delete', { sessionId: session.id });
  });

  it('recalls by prefix tokens, with scores, kinds, limit and order', async () => {
    const { hits } = await call(client, 'recall', { query: 'DARK theme' });
    expect(hits.map((h: { content: string }) => h.content)).toEqual(['The user prefers dark themes']);
    expect(hits[0].score).toBe(1);
    const facts = await call(client, 'recall', { kinds: ['fact'] });
    expect(facts.hits.map((h: { kind: string }) => h.kind)).toEqual(['fact']);
    const newest = await call(client, 'recall', { limit: 1 });
    expect(newest.hits).toHaveLength(1);
    expect(newest.hits[0].content).toBe('Deploys go out on Tuesdays');
    const ranked = await call(client, 'recall', { query: 'user deploys', match: 'any', order: 'relevance' });
    expect(ranked.hits).toHaveLength(2);
    for (const h of ranked.hits) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
    expect((await call(client, 'recall', { query: '!!!' })).hits).toEqual([]);
  });

  it('forgets: a tombstone, gone from recall; a second forget answers the tombstone, an unknown id is not found', async () => {
    const { item } = await call(client, 'remember', { content: 'Temporary note about lunch' });
    const forgotten = await call(client, 'forget', { id: item.id, full: true });
    expect(forgotten.item).toMatchObject({ id: item.id, deleted: true, syncVersion: 2 });
    expect((await call(client, 'recall', { query: 'lunch' })).hits).toEqual([]);
    expect((await call(client, 'forget', { id: item.id, full: true })).item).toEqual(forgotten.item);
    expect(await callError(client, 'forget', { id: 'never-written' })).toBe('not_found: memory not found: never-written');
  });

  it('keeps a keyed slot, updates with a syncVersion check, filters recall by metadata and hides expired items', async () => {
    const { item } = await call(client, 'remember', { content: 'Theme is dark', key: 'user.theme', metadata: { tag: 'ui', n: 3 } });
    const again = await call(client, 'remember', { content: 'Theme is light', key: 'user.theme' });
    expect(again.item).toMatchObject({ id: item.id, content: 'Theme is light', metadata: { tag: 'ui', n: 3 }, syncVersion: 2 });
    const updated = await call(client, 'update_memory', { id: item.id, metadata: { tag: 'ui', n: 7 }, expectedSyncVersion: 2 });
    expect(updated.item).toMatchObject({ syncVersion: 3, metadata: { tag: 'ui', n: 7 } });
    expect(await callError(client, 'update_memory', { id: item.id, content: 'stale', expectedSyncVersion: 2 })).toMatch(/^conflict: /);
    expect((await call(client, 'recall', { query: 'theme', where: { n: { $gt: 5 } } })).hits.map((h: { id: string }) => h.id)).toEqual([item.id]);
    expect((await call(client, 'recall', { query: 'theme', where: { n: { $gt: '5' } } })).hits).toEqual([]);
    expect(await callError(client, 'recall', { where: { n: { $like: 1 } } })).toMatch(/^invalid: .*where\.n/);
    const old = await call(client, 'remember', { content: 'Expired promo code', expiresAt: '2000-01-01T00:00:00Z' });
    expect((await call(client, 'recall', { query: 'promo' })).hits).toEqual([]);
    expect(await callError(client, 'update_memory', { id: old.item.id, content: 'x' })).toMatch(/^not_found: /);
  });

  it('refuses a reused id as a conflict, so a retry writes no duplicate', async () => {
    await call(client, 'remember', { content: 'Once only', id: 'note-1' });
    expect(await callError(client, 'remember', { content: 'Once only', id: 'note-1' })).toMatch(/^conflict: .*note-1/);
    expect((await call(client, 'recall', { query: 'once only' })).hits).toHaveLength(1);
  });

  it('is lexical without an embedder, and refuses semantic recall there', async () => {
    const lexical = await call(client, 'recall', { query: 'themes' });
    expect(lexical.hits.map((h: { score: number }) => h.score)).toEqual([1]);
    expect(await callError(client, 'recall', { query: 'dark themes', mode: 'semantic', order: 'relevance' })).toMatch(
      /^invalid: invalid mode: semantic recall/,
    );
  });
});

describe('skills', () => {
  it('saves, keeps left-out fields on update, and bumps the version', async () => {
    const created = await call(client, 'skill_save', { slug: 'deploy', name: 'Deploy', body: 'npm run build, then push', tags: ['ops'] });
    expect(created.skill).toMatchObject({ slug: 'deploy', scope: web, version: 1, syncVersion: 1, uses: 0, wins: 0, tags: ['ops'] });
    const updated = await call(client, 'skill_save', { slug: 'deploy', name: 'Deploy to production' });
    expect(updated.skill).toMatchObject({
      id: created.skill.id,
      name: 'Deploy to production',
      body: 'npm run build, then push',
      tags: ['ops'],
      version: 2,
      syncVersion: 2,
    });
  });

  it('refuses a stale expectedSyncVersion, and a conditional create', async () => {
    const { skill } = await call(client, 'skill_get', { skill: 'deploy' });
    expect(await callError(client, 'skill_save', { slug: 'deploy', body: 'stale', expectedSyncVersion: skill.syncVersion - 1 })).toMatch(/^conflict: /);
    const ok = await call(client, 'skill_save', { slug: 'deploy', body: 'npm run build && git push', expectedSyncVersion: skill.syncVersion });
    expect(ok.skill.syncVersion).toBe(skill.syncVersion + 1);
    expect(await callError(client, 'skill_save', { slug: 'nothing-here', expectedSyncVersion: 1 })).toMatch(/^conflict: /);
  });

  it('searches by words in slug, name, body and tags, and gets by slug or id', async () => {
    await call(client, 'skill_save', { slug: 'rollback', name: 'Roll back', body: 'git revert the release', tags: ['ops', 'incident'] });
    const byTag = await call(client, 'skill_search', { query: 'incident' });
    expect(byTag.skills.map((s: { slug: string }) => s.slug)).toEqual(['rollback']);
    const all = await call(client, 'skill_search', {});
    expect(all.skills.map((s: { slug: string }) => s.slug)).toEqual(['deploy', 'rollback']);
    expect((await call(client, 'skill_search', { query: 'ops', limit: 1 })).skills).toHaveLength(1);
    // Every query word must match by default; with match any, one is enough.
    expect((await call(client, 'skill_search', { query: 'incident nowhere' })).skills).toEqual([]);
    const anyWord = await call(client, 'skill_search', { query: 'incident nowhere', match: 'any' });
    expect(anyWord.skills.map((s: { slug: string }) => s.slug)).toEqual(['rollback']);
    const bySlug = await call(client, 'skill_get', { skill: 'rollback' });
    const byId = await call(client, 'skill_get', { skill: bySlug.skill.id });
    expect(byId.skill).toEqual(bySlug.skill);
  });

  it('records outcomes atomically without touching the content version', async () => {
    const before = (await call(client, 'skill_get', { skill: 'rollback' })).skill;
    await call(client, 'skill_record_outcome', { skill: 'rollback', success: true });
    const after = await call(client, 'skill_record_outcome', { skill: before.id, success: false });
    expect(after.skill).toMatchObject({ uses: 2, wins: 1, version: before.version, syncVersion: before.syncVersion + 2 });
    const ranked = await call(client, 'skill_search', { order: 'winRate' });
    expect(ranked.skills.map((s: { slug: string }) => s.slug)).toEqual(['deploy', 'rollback']);
  });

  it('deletes into a tombstone; the slug is then not found, and a repeated delete answers the tombstone', async () => {
    const { skill } = await call(client, 'skill_save', { slug: 'scratch', body: 'temporary' });
    const deleted = await call(client, 'skill_delete', { skill: 'scratch', full: true });
    expect(deleted.skill).toMatchObject({ id: skill.id, deleted: true, version: 2 });
    expect(await callError(client, 'skill_get', { skill: 'scratch' })).toBe('not_found: skill not found: scratch');
    expect((await call(client, 'skill_delete', { skill: 'scratch', full: true })).skill).toEqual(deleted.skill);
    expect((await call(client, 'skill_delete', { skill: skill.id, full: true })).skill).toEqual(deleted.skill);
    expect(await callError(client, 'skill_delete', { skill: 'never-saved' })).toBe('not_found: skill not found: never-saved');
    expect(await callError(client, 'skill_record_outcome', { skill: skill.id, success: true })).toBe(`not_found: skill not found: ${skill.id}`);
  });
});

describe('sessions', () => {
  it('creates, appends numbered turns, reads and pages the transcript', async () => {
    const { session } = await call(client, 'session_create', { title: 'Support chat', model: 'gpt-4.1', full: true });
    expect(session).toMatchObject({ title: 'Support chat', model: 'gpt-4.1', syncVersion: 1 });
    const roles = ['user', 'assistant', 'tool'] as const;
    for (const [i, role] of roles.entries()) {
      const { turn } = await call(client, 'session_append_turn', { sessionId: session.id, role, content: `turn ${i + 1}` });
      expect(turn).toMatchObject({ sessionId: session.id, seq: i + 1, role });
    }
    const all = await call(client, 'session_read', { sessionId: session.id, full: true });
    expect(all.session).toMatchObject({ id: session.id, syncVersion: 4 });
    expect(all.turns.map((t: { seq: number; content: string }) => [t.seq, t.content])).toEqual([
      [1, 'turn 1'],
      [2, 'turn 2'],
      [3, 'turn 3'],
    ]);
    const page = await call(client, 'session_read', { sessionId: session.id, afterSeq: 1, limit: 1 });
    expect(page.turns.map((t: { seq: number }) => t.seq)).toEqual([2]);
  });

  it('assembles the context for the next model call: the newest turns that fit, a tool call with its result, recalled memories first', async () => {
    const { session } = await call(client, 'session_create', { title: 'Context' });
    const call1 = { type: 'tool-call', callId: 'ctx_1', toolName: 'weather', input: { city: 'Oslo' } };
    const result1 = { type: 'tool-result', callId: 'ctx_1', toolName: 'weather', output: { sky: 'clear' } };
    for (const turn of [
      { role: 'user', content: 'What is the weather in Oslo for the lighthouse trip?' },
      { role: 'assistant', parts: [call1] },
      { role: 'tool', parts: [result1] },
      { role: 'assistant', content: 'Clear skies.' },
    ])
      await call(client, 'session_append_turn', { sessionId: session.id, ...turn });
    const whole = await call(client, 'session_context', { sessionId: session.id, maxTokens: 10_000 });
    expect(whole).toMatchObject({ sessionId: session.id, maxTokens: 10_000, counter: 'o200k_base' });
    const entries = whole.entries as { kind: string; tokens: number; turn: { seq: number } }[];
    expect(entries.map((e) => e.turn.seq)).toEqual([1, 2, 3, 4]);
    expect(whole.tokens).toBe(entries.reduce((sum, e) => sum + e.tokens, 0));
    // A budget one token short of the result with its call and the answer: the pair leaves together.
    const tail = entries[1]!.tokens + entries[2]!.tokens + entries[3]!.tokens;
    const cut = await call(client, 'session_context', { sessionId: session.id, maxTokens: tail - 1 });
    expect(cut.entries.map((e: { turn: { seq: number } }) => e.turn.seq)).toEqual([4]);
    await call(client, 'remember', { content: 'The lighthouse trip is on Saturday' });
    const recalled = await call(client, 'session_context', { sessionId: session.id, maxTokens: 10_000, recall: 3 });
    expect(recalled.entries[0]).toMatchObject({ kind: 'memory', memory: { content: 'The lighthouse trip is on Saturday' } });
    // Compacted through the tool result, by its seq: the summary stands in for the first three turns.
    const summary = 'Asked for the weather in Oslo; the tool said clear skies.';
    const { session: compacted } = await call(client, 'session_compact', { sessionId: session.id, through: 3, summary, model: 'writer' });
    const third = (await call(client, 'session_read', { sessionId: session.id })).turns[2] as { id: string };
    expect(compacted.summary).toMatchObject({ text: summary, through: third.id, model: 'writer' });
    const summarised = await call(client, 'session_context', { sessionId: session.id, maxTokens: 10_000 });
    expect(summarised.entries.map((e: { kind: string }) => e.kind)).toEqual(['summary', 'turn']);
    expect(summarised.entries[0]).toMatchObject({ kind: 'summary', summary: { text: summary, through: third.id } });
    expect(await callError(client, 'session_compact', { sessionId: session.id, through: 99, summary })).toMatch(/^not_found: turn not found: 99/);
    expect(await callError(client, 'session_compact', { sessionId: session.id, through: 1, summary: '' })).toMatch(/summary/);
    expect(await callError(client, 'session_context', { sessionId: session.id, maxTokens: 0 })).toMatch(/maxTokens/);
    expect(await callError(client, 'session_context', { sessionId: 'nope', maxTokens: 10 })).toBe('not_found: session not found: nope');
    await call(client, 'session_delete', { sessionId: session.id });
  });

  it("reads and updates the working memory of the server's scope, and the context puts it first", async () => {
    expect(await call(client, 'working_memory_get', {})).toEqual({ item: null });
    const { item: first } = await call(client, 'working_memory_update', { text: '# Plan\n- pack for the lighthouse', expectedSyncVersion: 0 });
    expect(first).toMatchObject({ content: '# Plan\n- pack for the lighthouse', key: 'working-memory', syncVersion: 1 });
    const { item: appended } = await call(client, 'working_memory_update', { append: '- check the tide' });
    expect(appended.content).toBe('# Plan\n- pack for the lighthouse\n- check the tide');
    const { item: edited } = await call(client, 'working_memory_update', { find: 'the tide', replace: 'the tide table', expectedSyncVersion: 2 });
    expect((await call(client, 'working_memory_get', {})).item).toEqual(edited);
    expect(await callError(client, 'working_memory_update', { append: 'x', expectedSyncVersion: 2 })).toMatch(/^conflict: /);
    expect(await callError(client, 'working_memory_update', { find: 'nowhere', replace: 'x' })).toMatch(/^invalid: invalid find/);
    expect(await callError(client, 'working_memory_update', { text: 'a', append: 'b' })).toMatch(/^invalid: /);
    expect(await callError(client, 'working_memory_update', { text: 'tide '.repeat(3000) })).toMatch(
      /^invalid: invalid text: counts \d+ tokens, over the limit of 2000/,
    );
    const { session } = await call(client, 'session_create', { title: 'Working' });
    await call(client, 'session_append_turn', { sessionId: session.id, role: 'user', content: 'What is the plan?' });
    const window = await call(client, 'session_context', { sessionId: session.id, maxTokens: 10_000 });
    expect(window.entries.map((e: { kind: string }) => e.kind)).toEqual(['working', 'turn']);
    expect(window.entries[0].memory.content).toBe(edited.content);
    const without = await call(client, 'session_context', { sessionId: session.id, maxTokens: 10_000, working: false });
    expect(without.entries.map((e: { kind: string }) => e.kind)).toEqual(['turn']);
    expect((await call(client, 'recall', {})).hits.map((h: { id: string }) => h.id)).not.toContain(edited.id);
    await call(client, 'session_delete', { sessionId: session.id });
    await call(client, 'forget', { id: edited.id });
  });

  it('keeps structured turns with their parts and metadata, removes the last turn and replaces the suffix', async () => {
    const { session } = await call(client, 'session_create', { title: 'Tools', metadata: { app: 'test' } });
    expect(session.metadata).toEqual({ app: 'test' });
    const parts = [
      { type: 'reasoning', text: 'look it up' },
      { type: 'tool-call', callId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } },
      { type: 'text', text: 'Checking.', metadata: { cache: true } },
    ];
    const { turn } = await call(client, 'session_append_turn', { sessionId: session.id, role: 'assistant', parts, metadata: { tokens: 12 } });
    expect(turn).toMatchObject({ content: 'Checking.', parts, metadata: { tokens: 12 } });
    const result = { type: 'tool-result', callId: 'call_1', toolName: 'weather', output: { sky: 'clear' }, isError: false };
    const { turn: wrong } = await call(client, 'session_append_turn', { sessionId: session.id, role: 'tool', parts: [result], content: 'stale' });
    const { turn: removed } = await call(client, 'session_remove_last_turn', { sessionId: session.id, full: true });
    expect(removed).toMatchObject({ id: wrong.id, deleted: true, syncVersion: 2 });
    const { turns: added } = await call(client, 'session_replace_suffix', {
      sessionId: session.id,
      expected: [turn.id],
      turns: [
        { role: 'assistant', parts },
        { role: 'tool', parts: [result] },
      ],
    });
    expect(added.map((t: { seq: number }) => t.seq)).toEqual([3, 4]);
    expect(await callError(client, 'session_replace_suffix', { sessionId: session.id, expected: [turn.id], turns: [] })).toMatch(/^conflict: /);
    const last = await call(client, 'session_read', { sessionId: session.id, last: 1 });
    expect(last.turns).toEqual([added[1]]);
    expect(last.turns[0].parts).toEqual([result]);
    // A tool result without isError, as the AI SDK and OpenAI shape it, is not an error.
    const { isError: _, ...shaped } = result;
    const { turn: plain } = await call(client, 'session_append_turn', { sessionId: session.id, role: 'tool', parts: [shaped] });
    expect(plain.parts).toEqual([result]);
    // The transcript resource shows every part: reasoning, the call with its input, the result with its output.
    const markdown = await client.readResource({ uri: `agentstate://sessions/${encodeURIComponent(session.id)}` });
    const text = (markdown.contents[0] as { text: string }).text;
    expect(text).toContain('## 3. assistant');
    expect(text).toContain('**reasoning**\n\n> look it up');
    expect(text).toContain('**tool call** `weather` (call_1)\n\n```json\n{\n  "city": "Oslo"\n}\n```');
    expect(text).toContain('Checking.');
    expect(text).toContain('## 4. tool');
    expect(text).toContain('**tool result** `weather` (call_1)\n\n```json\n{\n  "sky": "clear"\n}\n```');
    // Leaves the scope's listing as the tests below expect it.
    await call(client, 'session_delete', { sessionId: session.id });
  });

  it("updates a session's title and metadata, refuses a stale syncVersion, and keeps it in the server's scope", async () => {
    const { session } = await call(client, 'session_create', { title: 'Draft', metadata: { a: 1 } });
    const { session: renamed } = await call(client, 'session_update', { sessionId: session.id, title: 'Final', expectedSyncVersion: session.syncVersion });
    expect(renamed).toMatchObject({ id: session.id, title: 'Final', metadata: { a: 1 }, scope: web, syncVersion: session.syncVersion + 1 });
    expect(await callError(client, 'session_update', { sessionId: session.id, title: 'Stale', expectedSyncVersion: session.syncVersion })).toMatch(
      /^conflict: /,
    );
    const { session: changed } = await call(client, 'session_update', { sessionId: session.id, metadata: { b: 2 } });
    expect(changed).toMatchObject({ title: 'Final', metadata: { b: 2 }, scope: web });
    // A scope is read relative to the server's, as session_create reads it: this server allows no subscopes.
    expect(await callError(client, 'session_update', { sessionId: session.id, scope: ['team:a'] })).toMatch(/^scope_denied: /);
    expect((await call(client, 'session_read', { sessionId: session.id })).session).toMatchObject({ title: 'Final', metadata: { b: 2 }, scope: web });
    const { turns } = await call(client, 'session_read', { sessionId: session.id });
    expect(turns).toEqual([]);
    await call(client, 'session_delete', { sessionId: session.id });
  });

  it("lists the scope's sessions oldest first, or newest first, with paging", async () => {
    const second = (await call(client, 'session_create', { title: 'Second' })).session;
    const oldest = await call(client, 'session_list', {});
    expect(oldest.sessions.map((s: { title: string }) => s.title)).toEqual(['Support chat', 'Second']);
    const newest = await call(client, 'session_list', { order: 'newest', limit: 1 });
    expect(newest.sessions.map((s: { title: string }) => s.title)).toEqual(['Second']);
    expect((await call(client, 'session_list', { offset: 1 })).sessions.map((s: { title: string }) => s.title)).toEqual(['Second']);
    const deleted = await call(client, 'session_delete', { sessionId: second.id });
    expect((await call(client, 'session_list', {})).sessions.map((s: { title: string }) => s.title)).toEqual(['Support chat']);
    expect(await callError(client, 'session_read', { sessionId: second.id })).toBe(`not_found: session not found: ${second.id}`);
    expect(await callError(client, 'session_append_turn', { sessionId: second.id, role: 'user', content: 'hi' })).toBe(
      `not_found: session not found: ${second.id}`,
    );
    expect((await call(client, 'session_delete', { sessionId: second.id })).session).toEqual(deleted.session);
    expect(await callError(client, 'session_delete', { sessionId: 'never-created' })).toBe('not_found: session not found: never-created');
  });
});

describe('state_diff', () => {
  it('lists what changed between two points, in this server’s scope, and refuses a point beyond the head', async () => {
    const from = (await call(client, 'state_diff', { from: 0 })).to.seq as number;
    const { item } = await call(client, 'remember', { content: 'diffed fact' });
    await call(client, 'update_memory', { id: item.id, content: 'diffed fact, changed' });
    const diff = await call(client, 'state_diff', { from });
    expect(diff.from.seq).toBe(from);
    expect(diff.to.seq).toBe(from + 2);
    expect(diff.memory.created.map((m: { content: string }) => m.content)).toEqual(['diffed fact, changed']);
    expect(diff.memory.changed).toEqual([]);
    const step = await call(client, 'state_diff', { from: from + 1, to: from + 2 });
    expect(step.memory.changed.map((c: { before: { content: string } }) => c.before.content)).toEqual(['diffed fact']);
    // A seq sent as its digits, as the MCP Inspector sends it, is a seq, not an instant.
    expect(await call(client, 'state_diff', { from: String(from + 1), to: String(from + 2) })).toEqual(step);
    expect(await callError(client, 'state_diff', { from: from + 99 })).toMatch(/beyond the head/);
  });
});

describe('bad arguments', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['remember', {}, /content/],
    ['remember', { content: '' }, /must not be empty at content/],
    ['remember', { content: 42 }, /expected string.* at content/],
    ['remember', { content: 'a\u0000b' }, /NUL characters at content/],
    ['remember', { content: 'x', kind: 'k'.repeat(1001) }, /at most 1000 characters at kind/],
    ['remember', { content: 'x', scope: [7] }, /at scope\[0\]/],
    ['recall', { limit: 0 }, />=1 at limit/],
    ['recall', { mode: 'psychic' }, /at mode/],
    ['recall', { minScore: 2 }, /at minScore/],
    ['forget', { id: '' }, /at id/],
    ['skill_save', { body: 'no slug' }, /at slug/],
    ['skill_save', { slug: 'x', tags: 'ops' }, /at tags/],
    ['skill_save', { slug: 'Bad Slug!' }, /must be lowercase ASCII letters and digits with single "-", "_" or "\." between them .* at slug/],
    ['skill_save', { slug: '../..' }, /must be lowercase ASCII letters and digits .* at slug/],
    ['skill_save', { slug: 'x', expectedSyncVersion: 0 }, /at expectedSyncVersion/],
    ['skill_record_outcome', { skill: 'deploy' }, /at success/],
    ['session_append_turn', { sessionId: 's', role: 'narrator', content: 'x' }, /at role/],
    ['session_read', { sessionId: 's', afterSeq: -1 }, /at afterSeq/],
    [
      'session_append_turn',
      { sessionId: 's', role: 'user', parts: [{ type: 'file', mediaType: 'a/b' }] },
      /give exactly one of url and data at parts\[0\]\.url/,
    ],
    ['session_append_turn', { sessionId: 's', role: 'user', content: 'x', metadata: [1] }, /at metadata/],
    ['session_replace_suffix', { sessionId: 's', expected: 'a', turns: [] }, /at expected/],
    ['session_list', { order: 'sideways' }, /at order/],
    // An unknown argument is refused, not dropped: `project` (an old scope form) must not delete the global skill.
    ['skill_delete', { skill: 'deploy', project: 'web' }, /project/],
    ['recall', { query: 'x', projct: 'web' }, /projct/],
  ];
  for (const [tool, args, expected] of cases) {
    it(`${tool} ${JSON.stringify(args).slice(0, 60)} is an error result naming the field`, async () => {
      const message = await callError(client, tool, args);
      expect(message).toMatch(/Input validation error/);
      expect(message).toMatch(expected);
    });
  }

  it('answers an unknown tool with an error result', async () => {
    expect(await callError(client, 'drop_database', {})).toMatch(/Tool drop_database not found/);
  });

  it('answers missing records in one line with the code first', async () => {
    for (const [tool, args] of [
      ['skill_get', { skill: 'nope' }],
      ['skill_record_outcome', { skill: 'nope', success: true }],
      ['session_read', { sessionId: 'nope' }],
      ['session_append_turn', { sessionId: 'nope', role: 'user', content: 'x' }],
      ['forget', { id: 'nope' }],
    ] as const) {
      const message = await callError(client, tool, args);
      expect(message).toMatch(/^not_found: \w+ not found: nope$/);
    }
  });

  it('is still serving after every error', async () => {
    expect((await call(client, 'recall', { query: 'dark' })).hits).toHaveLength(1);
  });
});

describe('resources', () => {
  it("offers transcript and skill templates, and lists the scope's records", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['agentstate://sessions/{sessionId}', 'agentstate://skills/{skill}']);
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('agentstate://skills/deploy');
    expect(uris).toContain('agentstate://skills/rollback');
    expect(uris.filter((u) => u.startsWith('agentstate://sessions/'))).toHaveLength(1);
  });

  it('reads a transcript and a skill as Markdown', async () => {
    const { sessions } = await call(client, 'session_list', {});
    const uri = `agentstate://sessions/${encodeURIComponent(sessions[0].id)}`;
    const transcript = await client.readResource({ uri });
    expect(transcript.contents[0]).toMatchObject({ uri, mimeType: 'text/markdown' });
    const text = (transcript.contents[0] as { text: string }).text;
    expect(text).toMatch(/^# Support chat\n/);
    expect(text).toContain('## 2. assistant');
    expect(text).toContain('turn 3');
    const skill = await client.readResource({ uri: 'agentstate://skills/rollback' });
    const body = (skill.contents[0] as { text: string }).text;
    expect(body).toMatch(/^# Roll back\n/);
    expect(body).toContain('git revert the release');
    expect(body).toContain('1 wins in 2 uses');
  });

  it("answers MCP's resource-not-found error (-32002) for records it cannot find", async () => {
    for (const [uri, message] of [
      ['agentstate://skills/nope', /skill not found: nope/],
      ['agentstate://sessions/nope', /session not found: nope/],
    ] as const) {
      const error = await client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32002, data: { uri } });
      expect((error as McpError).message).toMatch(message);
    }
  });
});
