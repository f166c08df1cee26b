/**
 * Event times never decrease along a stream (docs/contract.md §7), and
 * selecting a point by time relies on it (§11): an export whose times go
 * back is refused, naming its line, rather than imported into a log that
 * `at({ time })` would misread.
 */
import { ExportFormatError } from './errors.js';

/** The time of the last line read of each stream, which the next line of that stream may not precede. */
export class TimeOrder {
  readonly #last = new Map<string, { time: string; lineNo: number }>();

  /** Notes the line's time; an {@link ExportFormatError} naming the line when it is earlier than the stream's line before it. */
  check(event: { stream: string; time: string }, lineNo: number): void {
    const last = this.#last.get(event.stream);
    if (last !== undefined && event.time < last.time) {
      throw new ExportFormatError(
        `"time" ${event.time} is earlier than ${last.time}, the time of the ${event.stream} event before it (line ${last.lineNo}): times never decrease along a stream`,
        lineNo,
      );
    }
    this.#last.set(event.stream, { time: event.time, lineNo });
  }
}
