/** A1–A7: the provider itself and the session store. */
import { NotFoundError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

export const sessionChecks: ProviderCheck[] = checks([], {
  'A1 name is a non-empty string and close() resolves': fresh(async (p) => {
    expect(typeof p.name).toBe('string');
    expect(p.name.length).toBeGreaterThan(0);
    await expect(p.close()).resolves.toBeUndefined();
    // Idempotent: a second close resolves too.
    await expect(p.close()).resolves.toBeUndefined();
  }),
  "A2 sessions.get('missing') is NotFoundError": fresh(async (p) => {
    const error = await expectError(() => p.sessions.get('missing'), NotFoundError);
    expect(error.key).toBe('missing');
  }),
  'A3 sessions.create assigns a non-empty id and get returns the session': fresh(async (p) => {
    const s = await p.sessions.create({ title: 't', model: 'm' });
    expect(typeof s.id).toBe('string');
    expect(s.id.length).toBeGreaterThan(0);
    expect(s).toMatchObject({ title: 't', model: 'm', deleted: false, syncVersion: 1, updatedAt: s.createdAt });
    expect(await p.sessions.get(s.id)).toEqual(s);
  }),
  'A4 three appended turns get seq 1, 2, 3 and turns() returns them in order': fresh(async (p) => {
    const s = await p.sessions.create({ title: 't', model: 'm' });
    const appended = [];
    for (const content of ['c0', 'c1', 'c2']) appended.push(await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content }));
    expect(appended.map((t) => [t.seq, t.sessionId, t.role, t.content])).toEqual([
      [1, s.id, 'user', 'c0'],
      [2, s.id, 'user', 'c1'],
      [3, s.id, 'user', 'c2'],
    ]);
    expect(new Set(appended.map((t) => t.id)).size).toBe(3);
    expect(await p.sessions.turns(s.id)).toEqual(appended);
  }),
  'A5 appendTurn on a missing session is NotFoundError': fresh(async (p) => {
    await expectError(() => p.sessions.appendTurn({ sessionId: 'missing', role: 'user', content: 'c' }), NotFoundError);
    expect(await p.sessions.list()).toEqual([]);
  }),
  'A6 list() returns two sessions oldest first': fresh(async (p) => {
    const first = await p.sessions.create({ title: 'first' });
    const second = await p.sessions.create({ title: 'second' });
    expect(await p.sessions.list()).toEqual([first, second]);
  }),
  'A7 delete hides the session from get and list; a second delete is NotFoundError': fresh(async (p) => {
    const first = await p.sessions.create({ title: 'first' });
    const second = await p.sessions.create({ title: 'second' });
    const tombstone = await p.sessions.delete(first.id);
    expect(tombstone).toMatchObject({ id: first.id, deleted: true });
    await expectError(() => p.sessions.get(first.id), NotFoundError);
    expect(await p.sessions.list()).toEqual([second]);
    await expectError(() => p.sessions.delete(first.id), NotFoundError);
  }),
});
