/**
 * Cursor pagination (docs/contract.md §4, "Pages"), written once for every
 * list, search and recall. A page is an array with a non-enumerable
 * `nextCursor`; a cursor is opaque base64url text holding the sort key of
 * the last item served (a keyset, never an offset) and a digest of the query
 * that made it, so a cursor resumes exactly the query it came from and a
 * write between two pages can neither skip nor repeat a record whose sort
 * key does not change.
 *
 * A method adopts it with one call: `openPager(spec, cursor)` validates the
 * cursor against the query, hands the keyset (`after`) to the backend query,
 * and `page(fetched, limit)` turns up to `limit + 1` fetched items into the
 * page and its cursor.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { canonicalJson } from '../log/json.js';
import { compareStrings } from '../records/order.js';
import type { Keyset } from '../write/backend.js';

/** A list, search or recall result: the items, and where the next page starts. */
export type Page<T> = T[] & {
  /** Pass as `cursor` (with the same query) to read on; `undefined` when nothing more matched. */
  readonly nextCursor: string | undefined;
};

/** One part of a sort key: text compares in code-point order, numbers numerically. */
export type KeyPart = string | number;

/** The sort key of an item under a query's order: the values it is ordered by, the last one unique (an id). */
export type SortKey = readonly KeyPart[];

/** How one part of a sort key is typed and ordered. */
export interface KeyPartOrder {
  type: 'string' | 'number';
  direction: 'asc' | 'desc';
}

/** What a paged method declares once. */
export interface PagedQuery<T> {
  /** The method, e.g. `memory.recall`: a cursor of another method is refused. */
  method: string;
  /**
   * The validated options that decide which items match and their order,
   * without `cursor` and `limit` (the page size may change from page to page).
   */
  query: unknown;
  /** The order's parts, outermost first; the last must be unique among items. */
  order: readonly KeyPartOrder[];
  /** The sort key of an item, one value per part of `order`. */
  key(item: T): SortKey;
}

/** Where one page of one query starts, and how it ends. */
export interface Pager<T> {
  /** The sort key of the last item served, or `undefined` on the first page. */
  readonly after: SortKey | undefined;
  /** How many items earlier pages served (a hint for rankers that look a bounded depth). */
  readonly served: number;
  /** True when `item` sorts strictly after {@link after} (always true on the first page). */
  isAfter(item: T): boolean;
  /** The query's order over items, for results ranked in core (pass to `Array.prototype.sort`). */
  compare(a: T, b: T): number;
  /**
   * The page from items in order after {@link after}: the first `limit` of
   * them, with a next cursor when there were more (`limit` 0: all, no cursor).
   * Fetch `limit + 1` to know whether there is more.
   */
  page(items: T[], limit: number): Page<T>;
}

/** Cursor text longer than this is refused before it is decoded. */
export const MAX_CURSOR_CHARS = 4_096;

const VERSION = 1;

/** Makes `items` a page: `nextCursor` is defined non-enumerable, so equality, JSON and spreading see a plain array. */
export function toPage<T>(items: T[], nextCursor: string | undefined): Page<T> {
  Object.defineProperty(items, 'nextCursor', { value: nextCursor, enumerable: false, writable: false, configurable: false });
  return items as Page<T>;
}

/** The digest binding a cursor to its method and query. */
function queryDigest(method: string, query: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([method, query ?? null]), 'utf8')
    .digest('base64url')
    .slice(0, 22);
}

/** Compares two sort keys under `order`: negative when `a` comes first. */
export function compareKeys(order: readonly KeyPartOrder[], a: SortKey, b: SortKey): number {
  for (let i = 0; i < order.length; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    const c = typeof x === 'number' && typeof y === 'number' ? Math.sign(x - y) : compareStrings(String(x), String(y));
    if (c !== 0) return order[i]!.direction === 'asc' ? c : -c;
  }
  return 0;
}

const refuse = (message: string): never => {
  throw new ValidationError('cursor', message);
};

/** Decodes a cursor's sort key and served count, refusing what this query could not have made. */
function decode(spec: PagedQuery<unknown>, digest: string, cursor: string): { after: SortKey; served: number } {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) refuse('malformed cursor');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return refuse('malformed cursor');
  }
  if (!Array.isArray(value) || value.length !== 4 || value[0] !== VERSION) return refuse('malformed cursor');
  const [, q, k, n] = value as [number, unknown, unknown, unknown];
  if (q !== digest) return refuse(`cursor of another query (a cursor resumes only the ${spec.method} call that returned it)`);
  if (!Array.isArray(k) || k.length !== spec.order.length || !Number.isSafeInteger(n) || (n as number) < 0) return refuse('malformed cursor');
  const typed = (part: KeyPartOrder, v: unknown) => (part.type === 'number' ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string');
  if (!spec.order.every((part, i) => typed(part, k[i]))) refuse('malformed cursor');
  return { after: k as SortKey, served: n as number };
}

/**
 * Opens the pager of one call. A cursor that is not text, is malformed, or
 * was made by another method or another query (other filters, order or
 * scope) is a `ValidationError` on `cursor`.
 */
export function openPager<T>(spec: PagedQuery<T>, cursor: unknown): Pager<T> {
  const digest = queryDigest(spec.method, spec.query);
  if (cursor !== undefined && typeof cursor !== 'string') return refuse('expected a string');
  const start = cursor === undefined ? undefined : decode(spec as PagedQuery<unknown>, digest, cursor);
  const after = start?.after;
  const served = start?.served ?? 0;
  return {
    after,
    served,
    isAfter: (item) => after === undefined || compareKeys(spec.order, spec.key(item), after) > 0,
    compare: (a, b) => compareKeys(spec.order, spec.key(a), spec.key(b)),
    page(items, limit) {
      if (limit <= 0 || items.length <= limit) return toPage(items, undefined);
      const kept = items.slice(0, limit);
      const text = JSON.stringify([VERSION, digest, spec.key(kept[limit - 1]!), served + limit]);
      return toPage(kept, Buffer.from(text, 'utf8').toString('base64url'));
    },
  };
}

/**
 * The {@link Keyset} a backend query takes, from the sort key of an order
 * shaped `(sort, id)` or `(score, sort, id)`.
 */
export function toKeyset(after: SortKey | undefined): Keyset | undefined {
  if (after === undefined) return undefined;
  if (after.length === 3) return { score: Number(after[0]), sort: String(after[1]), id: String(after[2]) };
  return { sort: String(after[0]), id: String(after[1]) };
}

/** Ascending text. */
export const TEXT_ASC: KeyPartOrder = Object.freeze({ type: 'string', direction: 'asc' });
/** Descending text. */
export const TEXT_DESC: KeyPartOrder = Object.freeze({ type: 'string', direction: 'desc' });
/** Ascending number. */
export const NUMBER_ASC: KeyPartOrder = Object.freeze({ type: 'number', direction: 'asc' });
/** Descending number (scores: best first). */
export const NUMBER_DESC: KeyPartOrder = Object.freeze({ type: 'number', direction: 'desc' });

/**
 * True when a record at `score`, `sort`, `id` lies strictly after the keyset
 * in an order that ranks by score first (best first, when the keyset has
 * one), then by `sort` and `id` ascending (`direction` 1) or descending (-1).
 * What a backend applies when it cannot push the keyset into its index
 * (relevance orders, whose score it computes).
 */
export function pastKeyset(after: Keyset | undefined, score: number, sort: string, id: string, direction: 1 | -1): boolean {
  if (after === undefined) return true;
  if (after.score !== undefined && score !== after.score) return score < after.score;
  return (compareStrings(sort, after.sort) || compareStrings(id, after.id)) * direction > 0;
}
