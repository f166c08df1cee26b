/** Reading full-text candidates page by page and keeping those the exact check accepts, in both SQL backends. */

/** Rows fetched per page when candidates are verified, unless a search says otherwise. */
export const MIN_PAGE = 64;

/**
 * The pages a verified read asks for, until `limit` rows passing `keep` are kept (0: all): yields each page's
 * `[limit, offset]` (limit -1: every row) and is resumed with that page's rows. A generator, so that each backend
 * drives it with its own reads, synchronous or not.
 */
export function* verifiedPages<R>(limit: number, keep: (row: R) => boolean, minPage = MIN_PAGE): Generator<[limit: number, offset: number], R[], R[]> {
  if (limit <= 0) return (yield [-1, 0]).filter(keep);
  const page = Math.max(limit, minPage);
  const out: R[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = yield [page, offset];
    for (const row of rows) {
      if (!keep(row)) continue;
      out.push(row);
      if (out.length >= limit) return out;
    }
    if (rows.length < page) return out;
  }
}
