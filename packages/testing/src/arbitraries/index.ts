/**
 * @agentstate/testing/arbitraries — fast-check arbitraries for agentstate: texts (Unicode,
 * diacritics, punctuation, query syntax), scopes, records, JSON values and turn parts, store
 * inputs, and operation sequences for model-based tests. This entry does not import vitest, so it
 * works under any test runner.
 */
export * from './text.js';
export * from './records.js';
export * from './parts.js';
export * from './inputs.js';
export * from './operations.js';
export * from './metadata.js';
