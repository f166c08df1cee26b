/** X25: `sessions.update` (docs/contract.md §4, §7); X26: scopes passed as an option, and only as one. */
import { ConflictError, EventTypes, NotFoundError, replay, STATE_STREAM, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { readExport } from '../suite/export-read.js';
import { checks, fresh, freshLog, type ProviderCheck } from '../suite/harness.js';

export const sessionUpdateChecks: ProviderCheck[] = checks([], {
  'X25 sessions.update changes title, metadata and scope in one session.updated event; refused updates append none': freshLog(async (p) => {
    const session = await p.sessions.create({ title: 'draft', model: 'm', metadata: { a: 1 }, scope: ['users', 'u1'] });
    await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'hello' });
    const stored = await p.sessions.get(session.id);
    const changes = { title: 'Trip to Lisbon', metadata: { b: 2 }, scope: ['users', 'u2'] };
    const updated = await p.sessions.update(session.id, { ...changes, syncVersion: stored.syncVersion });
    expect(updated).toMatchObject({ id: session.id, ...changes, model: 'm', createdAt: session.createdAt });
    expect(updated.syncVersion).toBe(stored.syncVersion + 1);
    expect(updated.updatedAt >= stored.updatedAt).toBe(true);
    expect(await p.sessions.get(session.id)).toEqual(updated);
    // Omitted fields stay; the session is listed in its new scope only, its transcript kept.
    const renamed = await p.sessions.update(session.id, { title: 'Lisbon' });
    expect(renamed).toMatchObject({ title: 'Lisbon', metadata: { b: 2 }, scope: ['users', 'u2'], syncVersion: updated.syncVersion + 1 });
    expect((await p.sessions.list({ scope: ['users', 'u2'] })).map((s) => s.id)).toEqual([session.id]);
    expect(await p.sessions.list({ scope: ['users', 'u1'] })).toEqual([]);
    expect((await p.sessions.turns(session.id)).map((t) => t.content)).toEqual(['hello']);

    const head = await p.log.head(STATE_STREAM);
    await expectError(() => p.sessions.update(session.id, { title: 'stale', syncVersion: stored.syncVersion }), ConflictError);
    await expectError(() => p.sessions.update(session.id, { model: 'other' } as never), ValidationError);
    await expectError(() => p.sessions.update(session.id, { title: 'x'.repeat(100_000) }), ValidationError);
    await expectError(() => p.sessions.update('missing', { title: 'x' }), NotFoundError);
    expect(await p.log.head(STATE_STREAM)).toBe(head);

    const events = await p.log.read({ stream: STATE_STREAM });
    expect(events.filter((e) => e.type === EventTypes.SessionUpdated).map((e) => e.payload)).toEqual([{ session: updated }, { session: renamed }]);
    expect((await p.history(session.id)).map((v) => v.type)).toEqual([
      EventTypes.SessionCreated,
      EventTypes.TurnAppended,
      EventTypes.SessionUpdated,
      EventTypes.SessionUpdated,
    ]);
    const again = await replay(p.log, { fromScratch: true });
    try {
      expect(await again.sessions.get(session.id)).toEqual(renamed);
    } finally {
      await again.close();
    }

    // An export carries the updates: read back, the session is the updated one.
    expect((await readExport(p.log)).sessions).toEqual([renamed]);

    // A retry under the same operation id answers with the first result; a deleted session is not updated.
    const once = await p.sessions.update(session.id, { title: 'once', operationId: 'op-update-session' });
    expect(await p.sessions.update(session.id, { title: 'once', operationId: 'op-update-session' })).toEqual(once);
    await p.sessions.delete(session.id);
    await expectError(() => p.sessions.update(session.id, { title: 'gone' }), NotFoundError);

    // A purge erases the titles every update event carried.
    await p.purge({ id: session.id, reason: 'test' });
    const texts = (await p.log.read({ stream: STATE_STREAM })).map((e) => JSON.stringify(e.payload)).join('\n');
    expect(texts).not.toContain('Lisbon');
  }),
  'X26 a scope is passed as an option; a scope passed positionally is a ValidationError and writes nothing': fresh(async (p) => {
    const web = await p.skills.upsert({ slug: 'deploy', body: 'web', scope: ['web'] });
    await p.skills.upsert({ slug: 'deploy', body: 'global' });
    await p.skills.upsert({ slug: 'lint', body: 'api', scope: ['web', 'api'] });
    const item = await p.memory.write({ content: 'dark mode', key: 'theme', scope: ['users', 'u1'] });
    const global = await p.memory.write({ content: 'light mode', key: 'theme' });

    expect((await p.skills.list({ scope: ['web'] })).map((s) => s.body)).toEqual(['web']);
    expect((await p.skills.list({ scope: ['web'], includeDescendants: true })).map((s) => s.body)).toEqual(['web', 'api']);
    expect((await p.skills.list()).map((s) => s.body)).toEqual(['global']);
    expect(await p.skills.get('deploy', { scope: ['web'] })).toEqual(web);
    expect(await p.skills.get('deploy', { scope: ['web', 'api'] })).toEqual(web);
    expect((await p.skills.getAny('deploy', { scope: ['web'] })).id).toBe(web.id);
    expect(await p.memory.getByKey('theme', { scope: ['users', 'u1'] })).toEqual(item);
    expect(await p.memory.getByKey('theme')).toEqual(global);
    await expectError(() => p.memory.getByKey('theme', { scope: ['users'] }), NotFoundError);
    await expectError(() => p.skills.list({ scope: 'web' as never }), ValidationError);

    // A scope as an argument of its own is refused, never read as options.
    await expectError(() => p.skills.list(['web'] as never), ValidationError);
    await expectError(() => p.skills.get('deploy', ['web'] as never), ValidationError);
    await expectError(() => p.skills.getAny('deploy', ['web'] as never), ValidationError);
    await expectError(() => p.memory.getByKey(['users', 'u1'] as never, 'theme' as never), ValidationError);
    await expectError(() => p.skills.delete('lint', ['web', 'api'] as never), ValidationError);
    expect((await p.skills.get('lint', { scope: ['web', 'api'] })).deleted).toBe(false);

    expect(await p.skills.delete('deploy', { scope: ['web'] })).toMatchObject({ id: web.id, deleted: true });
    expect(await p.skills.delete('lint', { scope: ['web', 'api'] })).toMatchObject({ body: 'api', deleted: true });
    expect(await p.skills.delete('deploy')).toMatchObject({ body: 'global', deleted: true });
  }),
});
