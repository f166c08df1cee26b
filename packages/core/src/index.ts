/**
 * @agentstate/core — durable, event-sourced state for AI agents: records,
 * clocks, ids, the log, the stamper, the projection, snapshots, lexical
 * matching, the embedder seam and the in-memory provider.
 */
export * from './errors.js';
export * from './time/clock.js';
export * from './time/instant.js';
export * from './time/hlc.js';
export * from './ids/entropy.js';
export * from './ids/uuidv7.js';
export * from './records/index.js';
export * from './log/log.js';
export * from './log/json.js';
export * from './log/freeze.js';
export * from './log/append.js';
export * from './log/state-append.js';
export * from './log/in-memory-log.js';
export * from './log/events.js';
export * from './log/changes.js';
export * from './log/upcasters.js';
export * from './log/decode.js';
export * from './snapshot/snapshot.js';
export * from './snapshot/codecs.js';
export * from './snapshot/restore.js';
export * from './snapshot/binding.js';
export * from './matching/lexical.js';
export * from './embedding/embedder.js';
export * from './embedding/fusion.js';
export * from './write/backend.js';
export * from './provider/types.js';
export * from './matching/bm25.js';
export * from './write/stamper.js';
export * from './write/mutex.js';
export * from './provider/options.js';
export * from './provider/recall-defaults.js';
export * from './provider/state-provider.js';
export * from './provider/skill-resolution.js';
export * from './in-memory/fold-rules.js';
export * from './in-memory/state.js';
export * from './in-memory/backend.js';
export * from './in-memory/fold.js';
export * from './in-memory/provider.js';
export * from './export/index.js';
