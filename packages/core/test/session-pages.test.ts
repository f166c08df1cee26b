/**
 * `pageSessions`: a face's own session list, in any order it comes, pages
 * by the rules of `sessions.list`: every session once, in (createdAt, id)
 * order either way, the offset on the first page only, cursors bound to
 * their call, bad options a `ValidationError` naming the field.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createInMemoryProvider, ManualClock, pageSessions, seededEntropy, ValidationError } from '../src/index.js';
import type { Session, SessionPageOptions } from '../src/index.js';

const BINDING = { method: 'test.sessions', query: { scope: ['project:p'] } };

/** Twelve sessions, three to an instant, so ties fall to the id. */
let sessions: Session[] = [];
beforeAll(async () => {
  const clock = new ManualClock();
  const p = createInMemoryProvider({ clock, entropy: seededEntropy(7), instanceId: 'pages' });
  for (let i = 0; i < 12; i += 1) {
    if (i % 3 === 0) clock.advance(1000);
    sessions.push(await p.sessions.create({ title: `s${i}` }));
  }
  sessions = await p.sessions.list();
  await p.close();
});

/** Every page of a call, by following its cursors. */
function allPages(listing: Session[], options: SessionPageOptions): string[] {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = pageSessions(listing, BINDING, { ...options, cursor });
    out.push(...page.map((s) => s.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return out;
}

describe('pageSessions', () => {
  it('serves the listing once each, in order, past the offset, through any page size (property)', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(sessions, { minLength: sessions.length }),
        fc.constantFrom<'oldest' | 'newest'>('oldest', 'newest'),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 14 }),
        (listing, order, limit, offset) => {
          const ordered = order === 'oldest' ? sessions : [...sessions].reverse();
          expect(allPages(listing, { order, limit, offset })).toEqual(ordered.slice(offset).map((s) => s.id));
        },
      ),
    );
  });

  it('lists oldest first by default, and without a limit in one page', () => {
    const page = pageSessions([...sessions].reverse(), BINDING);
    expect(page.map((s) => s.id)).toEqual(sessions.map((s) => s.id));
    expect(page.nextCursor).toBeUndefined();
  });

  it('refuses a cursor of another call, order or offset, naming cursor', () => {
    const { nextCursor } = pageSessions(sessions, BINDING, { limit: 2 });
    expect(nextCursor).toBeDefined();
    const refused = [
      () => pageSessions(sessions, { ...BINDING, method: 'test.other' }, { limit: 2, cursor: nextCursor }),
      () => pageSessions(sessions, { ...BINDING, query: { scope: [] } }, { limit: 2, cursor: nextCursor }),
      () => pageSessions(sessions, BINDING, { limit: 2, order: 'newest', cursor: nextCursor }),
      () => pageSessions(sessions, BINDING, { limit: 2, offset: 1, cursor: nextCursor }),
    ];
    for (const call of refused) expect(call).toThrow(expect.objectContaining({ field: 'cursor' }));
  });

  it('refuses bad options with a ValidationError naming the field', () => {
    const bad: [SessionPageOptions, string][] = [
      [{ order: 'sideways' as 'oldest' }, 'order'],
      [{ limit: -1 }, 'limit'],
      [{ offset: 1.5 }, 'offset'],
    ];
    for (const [options, field] of bad) {
      expect(() => pageSessions(sessions, BINDING, options)).toThrow(ValidationError);
      expect(() => pageSessions(sessions, BINDING, options)).toThrow(expect.objectContaining({ field }));
    }
  });
});
