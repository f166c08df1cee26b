/**
 * The report both SQL backends' `verify()` build in one consistent read
 * (docs/contract.md §10): the checks only the backend has that run first,
 * the tables read back, core's replay check against them, then the checks
 * of the parts the backend derives, each guarded.
 */
import { InMemoryState } from '../fold/state.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { SnapshotCodec } from '../snapshot/codecs.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { type VerifyProblem, type VerifyReport, overallRepair } from '../verify/report.js';
import { type CheckReplayOptions, type ReplayResult, type ReplaySource, checkReplay, describeError } from '../verify/replay.js';
import type { Awaitable } from '../write/backend.js';
import type { VerifyOptions } from './options.js';

/** The tables `capture` reads back, or `undefined` once the problem that they cannot be read is added to `problems`. */
async function readTables(capture: () => Snapshot | Promise<Snapshot>, problems: VerifyProblem[]): Promise<Snapshot | undefined> {
  try {
    return await capture();
  } catch (error) {
    problems.push({ part: 'tables', message: `the tables cannot be read: ${describeError(error)}`, repair: 'rebuild' });
    return undefined;
  }
}

/** Runs one check of a derived part; a check that cannot even run reports that as damage to its part. */
async function checkPart(part: 'tables' | 'fts' | 'vectors', check: () => VerifyProblem[] | Promise<VerifyProblem[]>): Promise<VerifyProblem[]> {
  try {
    return await check();
  } catch (error) {
    return [{ part, message: `the ${part} cannot be checked: ${describeError(error)}`, repair: 'rebuild' }];
  }
}

/** A check of a part the backend derives, run by {@link checkPart}. */
export type DerivedCheck = [part: 'tables' | 'fts' | 'vectors', check: () => Awaitable<VerifyProblem[]>];

/** What a backend's `verify()` reads and checks, all in its one consistent read. */
export interface VerifyRun {
  /** The backend's checks that come first (of its pages, of events its log lost). */
  first?: () => Awaitable<VerifyProblem[]>;
  /** Reads the tables back. */
  capture: () => Awaitable<Snapshot>;
  /** The log. */
  source: ReplaySource;
  /** The streams besides `state`, in order. */
  otherStreams: () => Awaitable<string[]>;
  /** The stored history index (see {@link CheckReplayOptions.historyIndex}). */
  historyIndex: NonNullable<CheckReplayOptions['historyIndex']>;
  codec?: SnapshotCodec | undefined;
  upcasters?: UpcasterRegistry | undefined;
  /**
   * Report a log that cannot be read at all (the driver throws) as one `log`
   * problem and go on, where the read can go on after such an error (SQLite's);
   * otherwise the error is thrown.
   */
  reportUnreadableLog?: boolean;
  /** The checks of the parts the backend derives, given the tables read back (`undefined`: they could not be). */
  derived: (tables: Snapshot | undefined) => DerivedCheck[];
}

/** Runs `run`'s checks in order and gathers their problems, with the replay's figures, into core's report. */
export async function verifyReport(run: VerifyRun, options: VerifyOptions): Promise<VerifyReport> {
  const problems: VerifyProblem[] = [...((await run.first?.()) ?? [])];
  const tables = await readTables(run.capture, problems);
  let replay: ReplayResult;
  try {
    replay = await checkReplay(run.source, {
      tables: tables ?? new InMemoryState().capture(),
      codec: run.codec,
      upcasters: run.upcasters,
      otherStreams: await run.otherStreams(),
      onProgress: options.onProgress,
      historyIndex: run.historyIndex,
    });
  } catch (error) {
    if (run.reportUnreadableLog !== true) throw error;
    // The log's pages themselves cannot be read (the replay reports unreadable events on its own).
    const problem: VerifyProblem = { part: 'log', object: 'events', message: `the log cannot be read: ${describeError(error)}`, repair: 'restore-backup' };
    replay = { events: 0, tablesSeq: tables?.seq ?? 0, sha256: '', bytes: 0, differences: [], storedSnapshot: null, skippedSnapshots: [], problems: [problem] };
  }
  const { problems: found, ...figures } = replay;
  // Tables that could not be read are compared as empty: that they differ is no news.
  problems.push(...found.filter((p) => tables !== undefined || p.part !== 'tables'));
  for (const [part, check] of run.derived(tables)) problems.push(...(await checkPart(part, check)));
  return { ok: problems.length === 0, problems, repair: overallRepair(problems), ...figures };
}
