/**
 * The refusal of an export: a line that is not an event this library could
 * have written, or a trailer that does not match the lines before it.
 */
import { AgentStateError } from '../errors.js';

/** An export that cannot be imported; `line` names the offending line when there is one. */
export class ExportFormatError extends AgentStateError {
  readonly code = 'invalid' as const;
  constructor(
    message: string,
    /** The 1-based line number of the refused line, when one is to blame. */
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}
