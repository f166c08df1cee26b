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
