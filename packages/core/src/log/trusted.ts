/**
 * The key of a log's trusted append: for a backend whose payloads the stamper
 * built and validated by construction, so the `state` rule is not paid twice
 * on the write path. Deliberately not exported from the package.
 */
export const trustedAppend: unique symbol = Symbol('agentstate.trustedAppend');
