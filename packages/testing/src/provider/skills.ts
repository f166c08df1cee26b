/** A8–A18: skills, optimistic concurrency and tombstones. */
import { compareHlc, ConflictError, NotFoundError } from '@agentstate/core';
import { expect } from 'vitest';
import { expectError } from '../suite/expect-error.js';
import { GLOBAL } from '../suite/fixtures.js';
import type { ProviderCheck } from '../suite/harness.js';
import { checks, fresh } from '../suite/harness.js';

export const skillChecks: ProviderCheck[] = checks([], {
  "A8 skills.get('missing') is NotFoundError": fresh(async (p) => {
    await expectError(() => p.skills.get('missing'), NotFoundError);
  }),
  'A9 upsert creates version 1; get by id and by slug agree': fresh(async (p) => {
    const s = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    expect(typeof s.id).toBe('string');
    expect(s.id.length).toBeGreaterThan(0);
    expect(s).toMatchObject({
      slug: 'deploy',
      name: 'Deploy',
      body: 'ship it',
      tags: ['ops'],
      scope: GLOBAL,
      uses: 0,
      wins: 0,
      check: '',
      version: 1,
      syncVersion: 1,
      deleted: false,
      updatedAt: s.createdAt,
    });
    expect(await p.skills.get(s.id)).toEqual(s);
    expect(await p.skills.get('deploy')).toEqual(s);
  }),
  'A10 a second upsert of the slug keeps id and createdAt and makes version 2': fresh(async (p) => {
    const first = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    const second = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    expect(second).toMatchObject({ id: first.id, createdAt: first.createdAt, version: 2, body: 'ship faster', tags: ['ops'] });
    expect(await p.skills.get('deploy')).toEqual(second);
  }),
  'A11 the same slug in scope [project:alpha] is a second skill; list(alpha) returns only it': fresh(async (p) => {
    const global = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    const alpha = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', scope: ['project:alpha'] });
    expect(alpha.id).not.toBe(global.id);
    expect(alpha).toMatchObject({ version: 1, syncVersion: 1, scope: ['project:alpha'] });
    expect(await p.skills.list({ scope: ['project:alpha'] })).toEqual([alpha]);
    expect(await p.skills.list()).toEqual([global]);
    expect(await p.skills.get('deploy')).toEqual(global);
  }),
  "A12 search('faster', 0) finds exactly the global skill; search('', 1) returns at most one": fresh(async (p) => {
    await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops'] });
    const global = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship faster' });
    const alpha = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', scope: ['project:alpha'] });
    expect(await p.skills.search('faster', 0)).toEqual([global]);
    // Both match '': by slug, then id, so the older global skill comes first.
    expect(await p.skills.search('', 1)).toEqual([global]);
    expect(await p.skills.search('', 0)).toEqual([global, alpha]);
  }),
  'A13 create gives syncVersion 1; re-upserting the returned record gives syncVersion 2': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    expect(created.syncVersion).toBe(1);
    const updated = await p.skills.upsert({ ...created, body: 'v2' });
    expect(updated).toMatchObject({ id: created.id, body: 'v2', syncVersion: 2, version: 2 });
  }),
  'A14 an upsert carrying a stale syncVersion is ConflictError and changes nothing': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    const updated = await p.skills.upsert({ ...created, body: 'v2' });
    await expectError(() => p.skills.upsert({ ...created, body: 'v3' }), ConflictError);
    expect(await p.skills.get('deploy')).toEqual(updated);
  }),
  'A15 an upsert with syncVersion 0 or none succeeds unconditionally': fresh(async (p) => {
    const created = await p.skills.upsert({ slug: 'deploy', body: 'v1' });
    await p.skills.upsert({ ...created, body: 'v2' });
    const zero = await p.skills.upsert({ ...created, syncVersion: 0, body: 'v3' });
    expect(zero).toMatchObject({ id: created.id, body: 'v3', syncVersion: 3, version: 3 });
    const absent = await p.skills.upsert({ slug: 'deploy', body: 'v4' });
    expect(absent).toMatchObject({ id: created.id, body: 'v4', syncVersion: 4, version: 4 });
  }),
  'A16 upserting a new slug with syncVersion 5 is ConflictError': fresh(async (p) => {
    await expectError(() => p.skills.upsert({ slug: 'fresh', body: 'x', syncVersion: 5 }), ConflictError);
    await expectError(() => p.skills.get('fresh'), NotFoundError);
    expect(await p.skills.list()).toEqual([]);
  }),
  'A17 a deleted skill is gone from get, list and search; a second delete is NotFoundError': fresh(async (p) => {
    const skill = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it' });
    const tombstone = await p.skills.delete('deploy');
    expect(tombstone).toMatchObject({ id: skill.id, slug: 'deploy', deleted: true });
    await expectError(() => p.skills.get('deploy'), NotFoundError);
    await expectError(() => p.skills.get(skill.id), NotFoundError);
    expect(await p.skills.list()).toEqual([]);
    expect(await p.skills.search('deploy', 0)).toEqual([]);
    expect(await p.skills.search('', 0)).toEqual([]);
    await expectError(() => p.skills.delete('deploy'), NotFoundError);
  }),
  'A18 upserting a deleted slug resurrects it with a later updatedHlc and the new body': fresh(async (p) => {
    const original = await p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it' });
    const tombstone = await p.skills.delete('deploy');
    const back = await p.skills.upsert({ slug: 'deploy', body: 'ship again' });
    expect(back).toMatchObject({ id: original.id, deleted: false, body: 'ship again', name: 'Deploy', version: 3 });
    expect(compareHlc(back.updatedHlc, original.updatedHlc)).toBeGreaterThan(0);
    expect(compareHlc(back.updatedHlc, tombstone.updatedHlc)).toBeGreaterThan(0);
    expect((await p.skills.get('deploy')).body).toBe('ship again');
    expect(await p.skills.get('deploy')).toEqual(back);
  }),
});
