/** Reading full-text candidates page by page and keeping those the exact check accepts, in both SQL backends. */
import type { Awaitable } from '../write/backend.js';
import { drive, type Steps, wait } from '../write/awaitable.js';

/** Rows fetched per page when candidates are verified, unless a search says otherwise. */
export const MIN_PAGE = 64;

/** How a backend reads one page of candidates: `limit` rows (-1: every row) after `offset`. */
export type ReadPage<R> = (limit: number, offset: number) => Awaitable<R[]>;

/**
 * Reads pages with `read` until `limit` rows passing `keep` are kept (0: all): synchronously when `read` is
 * (SQLite), a promise when it answers with one (PostgreSQL).
 */
export function verifiedPages<R>(read: (limit: number, offset: number) => R[], limit: number, keep: (row: R) => boolean, minPage?: number): R[];
export function verifiedPages<R>(read: ReadPage<R>, limit: number, keep: (row: R) => boolean, minPage?: number): Awaitable<R[]>;
export function verifiedPages<R>(read: ReadPage<R>, limit: number, keep: (row: R) => boolean, minPage = MIN_PAGE): Awaitable<R[]> {
  return drive(pages(read, limit, keep, minPage));
}

function* pages<R>(read: ReadPage<R>, limit: number, keep: (row: R) => boolean, minPage: number): Steps<R[]> {
  if (limit <= 0) return (yield* wait(read(-1, 0))).filter(keep);
  const page = Math.max(limit, minPage);
  const out: R[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = yield* wait(read(page, offset));
    for (const row of rows) {
      if (!keep(row)) continue;
      out.push(row);
      if (out.length >= limit) return out;
    }
    if (rows.length < page) return out;
  }
}
