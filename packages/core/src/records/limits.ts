/**
 * Documented size limits. Text over a limit is refused with a
 * `ValidationError` before anything is stamped (docs/contract.md §4).
 */
export const LIMITS = Object.freeze({
  /** Caller-supplied ids, in characters. */
  id: 128,
  /** Slugs, in characters. */
  slug: 200,
  /** Short text: titles, models, names, kinds, sources, scope labels, tags. */
  shortText: 1_000,
  /** A skill's `check` command. */
  check: 10_000,
  /** Long text: turn content, skill bodies, memory content (characters). */
  longText: 1_000_000,
  /** A session's compaction summary (characters). */
  summary: 100_000,
  /** Tags on one skill. */
  tags: 64,
  /** Labels in one scope path. */
  scopeDepth: 16,
  /** Query text, in characters. */
  query: 10_000,
  /** The largest `limit` a list, search or recall accepts. */
  pageSize: 10_000,
  /** Records in one batch write (`sessions.appendTurns`, `memory.writeMany`). */
  batch: 10_000,
  /** Nesting of a JSON value: an object or array inside another counts one level. */
  jsonDepth: 32,
  /** A `metadata` object, as canonical JSON text, in characters. */
  metadata: 65_536,
  /** Parts of one turn. */
  parts: 256,
  /** A file part's `url`, in characters. */
  url: 8_192,
  /** Inline base64 `data` of a file part, in characters. */
  inlineData: 750_000,
  /** Paths in one metadata filter (`where`). */
  whereConditions: 64,
  /** Values of one `$in` or `$nin` list. */
  whereValues: 1_000,
  /**
   * A checkpoint's `checkpoint` value, or the values of one `putWrites` call
   * together, as canonical JSON text, in characters (16 MiB): one event
   * carries at most this much caller data beside its metadata.
   */
  checkpoint: 16_777_216,
  /** Writes in one `checkpoints.putWrites` call. */
  checkpointWrites: 1_000,
});
