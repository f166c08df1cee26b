/** What both SQL backends' `verify()` run around core's replay check: the tables read back, and each check of a derived part guarded. */
import type { Snapshot } from '../snapshot/snapshot.js';
import type { VerifyProblem } from '../verify/report.js';
import { describeError } from '../verify/replay.js';

/** The tables `capture` reads back, or `undefined` once the problem that they cannot be read is added to `problems`. */
export async function readTables(capture: () => Snapshot | Promise<Snapshot>, problems: VerifyProblem[]): Promise<Snapshot | undefined> {
  try {
    return await capture();
  } catch (error) {
    problems.push({ part: 'tables', message: `the tables cannot be read: ${describeError(error)}`, repair: 'rebuild' });
    return undefined;
  }
}

/** Runs one check of a derived part; a check that cannot even run reports that as damage to its part. */
export async function checkPart(part: 'tables' | 'fts' | 'vectors', check: () => VerifyProblem[] | Promise<VerifyProblem[]>): Promise<VerifyProblem[]> {
  try {
    return await check();
  } catch (error) {
    return [{ part, message: `the ${part} cannot be checked: ${describeError(error)}`, repair: 'rebuild' }];
  }
}
