/**
 * The key of a log's trusted append: for a backend whose payloads the stamper
 * built and validated by construction, so the `state` rule is not paid twice
 * on the write path. Deliberately not exported from the package.
 */
export const trustedAppend: unique symbol = Symbol('agentstate.trustedAppend');

/**
 * The key of a log's trusted read, for the fold: events as stored, not
 * frozen on the way out (the fold never changes them), each with whether its
 * payload was validated when it was appended.
 */
export const trustedRead: unique symbol = Symbol('agentstate.trustedRead');

/**
 * The key of an `InMemoryLog`'s rewrite of one stored event's payload
 * in place, for a purge (docs/contract.md §7): same stream, seq, type and envelope.
 */
export const rewriteEventPayload: unique symbol = Symbol('agentstate.rewriteEventPayload');

/** The key of an `InMemoryLog`'s removal of the stored snapshot rows a predicate selects, for a save or a purge. */
export const dropSnapshots: unique symbol = Symbol('agentstate.dropSnapshots');

/** The key of an `InMemoryLog`'s list of a stream's stored snapshots, in seq order, for a purge. */
export const snapshotRows: unique symbol = Symbol('agentstate.snapshotRows');

/**
 * The key of an `InMemoryLog`'s store of several snapshot rows in one synchronous step (each checked
 * first, then all stored), which no purge interleaves: a backend's atomic snapshot save.
 */
export const storeSnapshotRows: unique symbol = Symbol('agentstate.storeSnapshotRows');
