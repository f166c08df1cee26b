/**
 * Scope isolation between servers sharing one database file, each with its
 * own connection (in-process, over the SDK's in-memory transport): a
 * server bound to one project can neither read nor write another's memory,
 * skills or sessions (not by scope argument, not by id), reaches subscopes
 * and parents only when its operator allowed it, and never writes a parent.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { openSqlite } from '@agentstate/sqlite';
import { call, callError, connectInMemory, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
/** Bound to project `web`, nothing more. */
let web: Client;
/** Bound to project `shop`, nothing more. */
let shop: Client;
/** Bound to project `web`, with subscopes and parent reads. */
let webOpen: Client;
/** Bound to the global scope. */
let global: Client;

const seeded: Record<string, string> = {};

beforeAll(async () => {
  tmp = tempDir();
  const base = ['--db', tmp.db, '--embedder', 'none'];
  [web, shop, webOpen, global] = await Promise.all([
    connectInMemory([...base, '--scope', 'project:web']),
    connectInMemory([...base, '--scope', 'project:shop']),
    connectInMemory([...base, '--scope', 'project:web', '--allow-subscopes', '--read-parents']),
    connectInMemory(base),
  ]);
  seeded.memory = (await call(web, 'remember', { content: 'The web team deploys on Tuesdays', kind: 'fact' })).item.id;
  seeded.skill = (await call(web, 'skill_save', { slug: 'deploy', name: 'Deploy web', body: 'vercel deploy --prod' })).skill.id;
  seeded.session = (await call(web, 'session_create', { title: 'web chat' })).session.id;
  await call(web, 'session_append_turn', { sessionId: seeded.session, role: 'user', content: 'secret web plans' });
  seeded.globalSkill = (await call(global, 'skill_save', { slug: 'lint', body: 'npm run lint', tags: ['quality'] })).skill.id;
  seeded.globalMemory = (await call(global, 'remember', { content: 'Every project deploys from main' })).item.id;
});

afterAll(async () => {
  await Promise.all([web, shop, webOpen, global].map((c) => c?.close()));
  tmp?.cleanup();
});

describe('another project', () => {
  it('sees nothing of it in listings and searches', async () => {
    expect((await call(shop, 'recall', {})).hits).toEqual([]);
    expect((await call(shop, 'recall', { query: 'deploys' })).hits).toEqual([]);
    expect((await call(shop, 'skill_search', {})).skills).toEqual([]);
    expect((await call(shop, 'session_list', {})).sessions).toEqual([]);
    expect((await shop.listResources()).resources).toEqual([]);
  });

  it('cannot reach its records by id or slug', async () => {
    expect(await callError(shop, 'skill_get', { skill: 'deploy' })).toBe('not_found: skill not found: deploy');
    expect(await callError(shop, 'skill_get', { skill: seeded.skill! })).toBe(`not_found: skill not found: ${seeded.skill}`);
    expect(await callError(shop, 'skill_record_outcome', { skill: seeded.skill!, success: true })).toMatch(/^not_found: /);
    expect(await callError(shop, 'skill_delete', { skill: seeded.skill! })).toMatch(/^not_found: /);
    expect(await callError(shop, 'forget', { id: seeded.memory! })).toBe(`not_found: memory not found: ${seeded.memory}`);
    expect(await callError(shop, 'session_read', { sessionId: seeded.session! })).toBe(`not_found: session not found: ${seeded.session}`);
    expect(await callError(shop, 'session_context', { sessionId: seeded.session!, maxTokens: 100 })).toBe(`not_found: session not found: ${seeded.session}`);
    expect(await callError(shop, 'session_compact', { sessionId: seeded.session!, through: 1, summary: 's' })).toMatch(/^not_found: /);
    expect(await callError(shop, 'session_append_turn', { sessionId: seeded.session!, role: 'user', content: 'x' })).toMatch(/^not_found: /);
    expect(await callError(shop, 'session_delete', { sessionId: seeded.session! })).toMatch(/^not_found: /);
    await expect(shop.readResource({ uri: `agentstate://sessions/${encodeURIComponent(seeded.session!)}` })).rejects.toThrow(/not found/);
    await expect(shop.readResource({ uri: 'agentstate://skills/deploy' })).rejects.toThrow(/not found/);
  });

  it('takes every scope argument relative to the bound project, so none leaves it', async () => {
    const outside = [['project:web'], ['..'], ['instance:laptop'], ['project:web', 'workspace:api']];
    for (const scope of outside) {
      for (const [tool, args] of [
        ['remember', { content: 'x', scope }],
        ['recall', { scope }],
        ['skill_search', { scope }],
        ['skill_get', { skill: 'deploy', scope }],
        ['skill_save', { slug: 'x', scope }],
        ['skill_record_outcome', { skill: 'deploy', success: true, scope }],
        ['skill_delete', { skill: 'deploy', scope }],
        ['session_create', { scope }],
        ['session_list', { scope }],
        ['working_memory_get', { scope }],
        ['working_memory_update', { text: 'x', scope }],
      ] as const) {
        expect(await callError(shop, tool, args), `${tool} ${JSON.stringify(scope)}`).toMatch(
          /^scope_denied: scope: project:shop\/.* is under this server's scope \(project:shop\), but the operator did not allow subscopes$/,
        );
      }
    }
  });

  it('keeps the same slug apart in each project', async () => {
    await call(shop, 'skill_save', { slug: 'deploy', name: 'Deploy shop', body: 'fly deploy' });
    expect((await call(shop, 'skill_get', { skill: 'deploy' })).skill.name).toBe('Deploy shop');
    expect((await call(web, 'skill_get', { skill: 'deploy' })).skill.name).toBe('Deploy web');
    const deleted = (await call(shop, 'skill_delete', { skill: 'deploy' })).skill;
    expect((await call(web, 'skill_get', { skill: 'deploy' })).skill.id).toBe(seeded.skill);
    // A repeated delete answers the shop's tombstone, never deletes the web project's skill, and the
    // tombstone stays out of the other project's reach.
    expect((await call(shop, 'skill_delete', { skill: 'deploy' })).skill).toEqual(deleted);
    expect((await call(web, 'skill_get', { skill: 'deploy' })).skill.id).toBe(seeded.skill);
    expect(await callError(web, 'skill_delete', { skill: deleted.id })).toBe(`not_found: skill not found: ${deleted.id}`);
  });

  it('leaves the other project intact', async () => {
    await call(shop, 'working_memory_update', { text: 'shop plans' });
    expect((await call(web, 'working_memory_get', {})).item).toBeNull();
    expect((await call(web, 'recall', { query: 'tuesdays' })).hits.map((h: { id: string }) => h.id)).toEqual([seeded.memory]);
    expect((await call(web, 'session_read', { sessionId: seeded.session! })).turns[0].content).toBe('secret web plans');
  });
});

describe('a strictly bound server', () => {
  it('refuses subscopes and parent reads', async () => {
    expect(await callError(web, 'remember', { content: 'x', scope: ['workspace:api'] })).toMatch(
      /^scope_denied: scope: project:web\/workspace:api is under .* did not allow subscopes$/,
    );
    expect(await callError(web, 'recall', { includeParentScopes: true })).toMatch(/^scope_denied: includeParentScopes: /);
    expect(await callError(web, 'skill_get', { skill: 'lint' })).toBe('not_found: skill not found: lint');
    expect(await callError(web, 'skill_get', { skill: seeded.globalSkill! })).toMatch(/^not_found: /);
    expect((await call(web, 'recall', { query: 'main' })).hits).toEqual([]);
  });

  it("never reaches a project's skill by slug when bound to the global scope, nor names its scope (issue 12)", async () => {
    const before = (await call(web, 'skill_get', { skill: 'deploy' })).skill;
    for (const [tool, args] of [
      ['skill_delete', { skill: 'deploy' }],
      ['skill_record_outcome', { skill: 'deploy', success: true }],
      ['skill_get', { skill: 'deploy' }],
    ] as const) {
      expect(await callError(global, tool, args), tool).toBe('not_found: skill not found: deploy');
    }
    expect((await call(web, 'skill_get', { skill: 'deploy' })).skill).toEqual(before);
  });

  it('is as strict when bound to the global scope', async () => {
    expect(await callError(global, 'recall', { scope: ['project:web'] })).toMatch(/did not allow subscopes/);
    expect(await callError(global, 'session_read', { sessionId: seeded.session! })).toMatch(/^not_found: /);
    expect((await call(global, 'skill_search', {})).skills.map((s: { slug: string }) => s.slug)).toEqual(['lint']);
  });
});

describe('a server allowed subscopes and parent reads', () => {
  it('writes and reads a workspace under its project', async () => {
    const { item } = await call(webOpen, 'remember', { content: 'The api workspace uses Postgres', scope: ['workspace:api'] });
    expect(item.scope).toEqual(['project:web', 'workspace:api']);
    expect((await call(webOpen, 'recall', { query: 'postgres', includeParentScopes: false })).hits).toEqual([]);
    const api = await call(webOpen, 'recall', { scope: ['workspace:api'] });
    expect(api.hits.map((h: { content: string }) => h.content)).toEqual([
      'The api workspace uses Postgres',
      'Every project deploys from main',
      'The web team deploys on Tuesdays',
    ]);
    const only = await call(webOpen, 'recall', { scope: ['workspace:api'], includeParentScopes: false });
    expect(only.hits).toHaveLength(1);
    expect(await callError(web, 'forget', { id: item.id })).toMatch(/^not_found: /);
    expect((await call(webOpen, 'forget', { id: item.id, full: true })).item.deleted).toBe(true);
  });

  it("keeps workspace sessions apart from the project's, and reads them by id", async () => {
    const { session } = await call(webOpen, 'session_create', { title: 'api chat', scope: ['workspace:api'] });
    await call(webOpen, 'session_append_turn', { sessionId: session.id, role: 'user', content: 'api only' });
    expect((await call(webOpen, 'session_list', {})).sessions.map((s: { title: string }) => s.title)).toEqual(['web chat']);
    expect((await call(webOpen, 'session_list', { scope: ['workspace:api'] })).sessions.map((s: { title: string }) => s.title)).toEqual(['api chat']);
    expect((await call(webOpen, 'session_read', { sessionId: session.id })).turns).toHaveLength(1);
    expect(await callError(web, 'session_read', { sessionId: session.id })).toMatch(/^not_found: /);
    expect(await callError(shop, 'session_read', { sessionId: session.id })).toMatch(/^not_found: /);
  });

  it('reads global skills but never changes them', async () => {
    expect((await call(webOpen, 'skill_get', { skill: 'lint' })).skill.id).toBe(seeded.globalSkill);
    expect((await call(webOpen, 'skill_search', { query: 'quality' })).skills.map((s: { id: string }) => s.id)).toEqual([seeded.globalSkill]);
    expect(await callError(webOpen, 'skill_get', { skill: 'lint', includeParentScopes: false })).toBe('not_found: skill not found: lint');
    expect(await callError(webOpen, 'skill_record_outcome', { skill: seeded.globalSkill!, success: true })).toMatch(
      /^scope_denied: skill .* belongs to a parent of this server's scope, which it may read but not change$/,
    );
    expect(await callError(webOpen, 'skill_delete', { skill: seeded.globalSkill! })).toMatch(/^scope_denied: /);
    expect(await callError(webOpen, 'skill_delete', { skill: 'lint' })).toBe('not_found: skill not found: lint');
    expect(await callError(webOpen, 'forget', { id: seeded.globalMemory! })).toMatch(/^scope_denied: /);
    expect((await call(global, 'skill_get', { skill: 'lint', full: true })).skill).toMatchObject({ uses: 0, deleted: false });
  });

  it('lists inherited skills among its resources', async () => {
    const { resources } = await webOpen.listResources();
    const skills = resources.filter((r) => r.uri.startsWith('agentstate://skills/'));
    expect(skills.map((r) => [r.uri, r.description])).toEqual([
      ['agentstate://skills/deploy', undefined],
      ['agentstate://skills/lint', 'from scope global'],
    ]);
    const lint = await webOpen.readResource({ uri: 'agentstate://skills/lint' });
    expect((lint.contents[0] as { text: string }).text).toContain('- scope: global');
  });
});

describe('session scope', () => {
  it('is the one in the record, whatever the id looks like', async () => {
    const hash = createHash('sha256').update('web', 'utf8').digest('hex').slice(0, 12);
    const id = `_.${hash}._~0190a0b0-0000-7000-8000-000000000001`;
    const p = await openSqlite(tmp.db);
    try {
      await p.sessions.create({ id, title: 'global chat' });
    } finally {
      await p.close();
    }
    expect((await call(global, 'session_read', { sessionId: id })).session.title).toBe('global chat');
    expect((await call(global, 'session_list', {})).sessions.map((s: { id: string }) => s.id)).toContain(id);
    expect(await callError(web, 'session_read', { sessionId: id })).toBe(`not_found: session not found: ${id}`);
    expect((await call(web, 'session_list', {})).sessions.map((s: { id: string }) => s.id)).not.toContain(id);
  });

  it('is the target scope for a new session, whose id is a plain UUIDv7', async () => {
    const { session } = await call(web, 'session_create', { title: 'new web chat' });
    expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(session.scope).toEqual(['project:web']);
  });
});
