/**
 * One page of a list of live sessions that a face orders itself (the MCP
 * server lists newest first as well as oldest first), paged by the rules of
 * `sessions.list` (docs/contract.md §4, "Pages"): by (createdAt, id), so a
 * write between two pages neither skips nor repeats a session.
 */
import { type Page, openPager, TEXT_ASC, TEXT_DESC } from '../paging/cursor.js';
import { type SessionPageOptions, parseInput, sessionPageOptionsSchema } from '../records/inputs.js';
import type { Session } from '../records/records.js';

/** The call a page's cursor is bound to: its name and the arguments that chose the sessions. */
export interface SessionPageBinding {
  method: string;
  query: Record<string, unknown>;
}

/**
 * Serves one page of `listing`, in whatever order it comes. The cursor is
 * bound to `binding` with the order and offset, so it resumes only the same
 * call: another is a `ValidationError` on `cursor`, as bad options are on
 * theirs.
 */
export function pageSessions(listing: readonly Session[], binding: SessionPageBinding, options: SessionPageOptions = {}): Page<Session> {
  const o = parseInput(sessionPageOptionsSchema, options);
  const order = o.order ?? 'oldest';
  const offset = o.offset ?? 0;
  const direction = order === 'newest' ? TEXT_DESC : TEXT_ASC;
  const pager = openPager<Session>(
    { method: binding.method, query: { ...binding.query, order, offset }, order: [direction, direction], key: (s) => [s.createdAt, s.id] },
    o.cursor,
  );
  const sessions = listing.filter((s) => pager.isAfter(s)).sort(pager.compare);
  // The offset skips on the first page only: a cursor already stands past it.
  const skip = pager.after === undefined ? offset : 0;
  const limit = o.limit ?? 0;
  return pager.page(sessions.slice(skip, limit > 0 ? skip + limit + 1 : undefined), limit);
}
