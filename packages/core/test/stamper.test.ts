import { describe, expect, it } from 'vitest';
import {
  compareHlc,
  ConflictError,
  EventTypes,
  ManualClock,
  NotFoundError,
  seededEntropy,
  sessionAfterTurn,
  skillId,
  UuidV7Generator,
  ValidationError,
} from '../src/index.js';
import { HybridLogicalClock } from '../src/time/hlc.js';
import { Stamper } from '../src/write/stamper.js';
import type { MemoryItem, Session, Skill, StateChange, Turn } from '../src/index.js';

function stamper(instanceId = 'i1', clock = new ManualClock(1_000_000)) {
  const hlc = new HybridLogicalClock(clock);
  return { clock, hlc, s: new Stamper({ instanceId, clock, hlc, ids: new UuidV7Generator(clock, seededEntropy(3)) }) };
}

const session = (c: StateChange) => (c.payload as { session: Session }).session;
const turn = (c: StateChange) => (c.payload as { turn: Turn }).turn;
const skill = (c: StateChange) => (c.payload as { skill: Skill }).skill;
const item = (c: StateChange) => (c.payload as { item: MemoryItem }).item;

describe('Stamper', () => {
  it('stamps a new record with the first envelope', () => {
    const { s } = stamper('inst');
    const c = s.createSession({ title: 't' }, undefined);
    expect(c.type).toBe(EventTypes.SessionCreated);
    expect(session(c)).toMatchObject({
      title: 't',
      model: '',
      createdAt: '1970-01-01T00:16:40.000Z',
      updatedAt: '1970-01-01T00:16:40.000Z',
      syncVersion: 1,
      originInstanceId: 'inst',
      lastWriterId: 'inst',
      deleted: false,
      updatedHlc: { wall: 1_000_000, counter: 0 },
    });
  });

  it('bumps the session with the turn: same HLC, syncVersion + 1, updatedAt never back', () => {
    const { s, clock } = stamper();
    const created = session(s.createSession({ createdAt: '2030-01-01T00:00:00.000Z' }, undefined));
    clock.advance(10);
    const c = s.appendTurn({ sessionId: created.id, role: 'user', content: 'hi' }, created, 4, false);
    // The event carries the turn alone: the session's next version is derived from the stored one.
    expect(c.payload).toEqual({ turn: turn(c) });
    const bumped = sessionAfterTurn(created, turn(c));
    expect(turn(c).seq).toBe(5);
    expect(turn(c).updatedHlc).toEqual(bumped.updatedHlc);
    expect(compareHlc(bumped.updatedHlc, created.updatedHlc)).toBeGreaterThan(0);
    expect(bumped).toEqual({ ...created, syncVersion: 2, updatedHlc: turn(c).updatedHlc, lastWriterId: turn(c).lastWriterId });
    expect(bumped.updatedAt).toBe('2030-01-01T00:00:00.000Z');
    const later = s.appendTurn({ sessionId: created.id, role: 'tool', content: '', createdAt: '2031-01-01T00:00:00.000Z' }, bumped, 5, false);
    expect(sessionAfterTurn(bumped, turn(later)).updatedAt).toBe('2031-01-01T00:00:00.000Z');
  });

  it('refuses turns on missing or deleted sessions, and taken turn ids', () => {
    const { s } = stamper();
    const created = session(s.createSession({}, undefined));
    expect(() => s.appendTurn({ sessionId: 'x', role: 'user', content: '' }, undefined, 0, false)).toThrow(NotFoundError);
    const tomb = session(s.deleteSession(created, created.id));
    expect(() => s.appendTurn({ sessionId: created.id, role: 'user', content: '' }, tomb, 0, false)).toThrow(NotFoundError);
    expect(() => s.appendTurn({ sessionId: created.id, role: 'user', content: '', id: 't' }, created, 0, true)).toThrow(ConflictError);
    expect(() => s.deleteSession(tomb, created.id)).toThrow(NotFoundError);
  });

  it('makes every replacement later than what it replaces, even from the future', () => {
    const { s } = stamper('me', new ManualClock(1_000));
    const created = session(s.createSession({}, undefined));
    const fromFuture: Session = { ...created, updatedHlc: { wall: 9_999_999, counter: 7 } };
    const c = s.deleteSession(fromFuture, created.id);
    expect(compareHlc(session(c).updatedHlc, fromFuture.updatedHlc)).toBeGreaterThan(0);
    expect(session(c).originInstanceId).toBe('me');
  });

  it('upserts: create, update keeping omitted fields, CAS, resurrect', () => {
    const { s } = stamper();
    const created = skill(s.upsertSkill({ slug: 'deploy', name: 'Deploy', body: 'b1', tags: ['ops'], check: 'make check' }, undefined, undefined));
    expect(created).toMatchObject({ version: 1, syncVersion: 1, uses: 0, wins: 0, tags: ['ops'], scope: [] });
    const used = skill(s.recordOutcome(created, true));
    expect([used.uses, used.wins, used.version, used.syncVersion]).toEqual([1, 1, 1, 2]);
    const updated = skill(s.upsertSkill({ slug: 'deploy', body: 'b2' }, used, undefined));
    expect(updated).toMatchObject({
      id: created.id,
      createdAt: created.createdAt,
      body: 'b2',
      name: 'Deploy',
      tags: ['ops'],
      check: 'make check',
      uses: 1,
      wins: 1,
      version: 2,
      syncVersion: 3,
    });
    expect(() => s.upsertSkill({ slug: 'deploy', syncVersion: 2 }, updated, undefined)).toThrow(ConflictError);
    expect(skill(s.upsertSkill({ slug: 'deploy', syncVersion: 3 }, updated, undefined)).syncVersion).toBe(4);
    expect(() => s.upsertSkill({ slug: 'new', syncVersion: 5 }, undefined, undefined)).toThrow(ConflictError);
    const tomb = skill(s.deleteSkill(updated));
    expect([tomb.deleted, tomb.version, tomb.syncVersion]).toEqual([true, 3, 4]);
    const back = skill(s.upsertSkill({ slug: 'deploy', body: 'b3' }, tomb, undefined));
    expect([back.deleted, back.version, back.syncVersion, back.id, back.originInstanceId]).toEqual([false, 4, 5, created.id, created.originInstanceId]);
  });

  it('refuses an id that another skill holds, or one that differs from the stored skill', () => {
    const { s } = stamper();
    const a = skill(s.upsertSkill({ slug: 'a' }, undefined, undefined));
    expect(() => s.upsertSkill({ slug: 'b', id: a.id }, undefined, a)).toThrow(ConflictError);
    expect(() => s.upsertSkill({ slug: 'a', id: 'other' }, a, undefined)).toThrow(ConflictError);
    expect(skill(s.upsertSkill({ slug: 'a', id: a.id }, a, a)).version).toBe(2);
  });

  it("creates a skill with its scope and slug's id, and keeps a stored skill's id of an older log", () => {
    const { s } = stamper();
    expect(skill(s.upsertSkill({ slug: 'a', scope: ['team'] }, undefined, undefined)).id).toBe(skillId(['team'], 'a'));
    expect(skill(s.upsertSkill({ slug: 'a', id: skillId([], 'a') }, undefined, undefined)).id).toBe(skillId([], 'a'));
    expect(() => s.upsertSkill({ slug: 'a', id: skillId(['team'], 'a') }, undefined, undefined)).toThrow(ValidationError);
    const older = { ...skill(s.upsertSkill({ slug: 'a' }, undefined, undefined)), id: '019b796d-d600-70a3-b54f-f1c2f209bc7b' };
    expect(skill(s.upsertSkill({ slug: 'a' }, older, older)).id).toBe(older.id);
  });

  it('writes and tombstones memory', () => {
    const { s } = stamper();
    const written = item(s.writeMemory({ content: 'c', scope: ['project:x'] }, undefined, undefined));
    expect(written).toMatchObject({ kind: 'fact', source: '', scope: ['project:x'], syncVersion: 1 });
    expect(() => s.writeMemory({ content: 'c', id: written.id }, written, undefined)).toThrow(ConflictError);
    const tomb = item(s.deleteMemory(written, written.id));
    expect([tomb.deleted, tomb.syncVersion]).toEqual([true, 2]);
    expect(() => s.deleteMemory(tomb, written.id)).toThrow(NotFoundError);
  });
});
