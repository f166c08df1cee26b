/**
 * @agentstate/ui — the inspector: a local web page over an agent's state
 * (sessions and transcripts, memory recall, skills and their evidence, the
 * event log as a timeline, the store's health), served by {@link serveUi} on
 * 127.0.0.1 from files built with the package. `agentstate ui` opens it.
 */
export { type UiOptions, type UiHandle, serveUi, DEFAULT_UI_PORT, UI_HOST } from './server.js';
export type { InspectedProvider } from './api.js';
export { UiOptionsError, UiRequestError, WritesDisabledError } from './errors.js';
export { type StateCounts, type RecordCounts, countSnapshot } from './counts.js';
export { type DiffSummary, type KindDiff, type DiffLine, summarizeDiff, DIFF_SAMPLE } from './diff-summary.js';
