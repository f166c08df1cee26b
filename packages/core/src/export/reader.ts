/**
 * Reading an export, line by line, for any backend that imports one: each
 * event line is checked (`lines.ts`) and folded into an {@link InMemoryState},
 * the same step replay and verify take, so a log that breaks a fold rule is
 * refused with its line, as is an `erasedBy` no purge of the log made true
 * (`log/erasure-marks.ts`); the lines are digested, and at the end the trailer
 * must match what was read. The reader keeps nothing but the fold: the
 * importer appends each checked event where it belongs.
 */
import { CorruptionError, ExportFormatError } from '../errors.js';
import { InMemoryState } from '../fold/state.js';
import { ErasureMarks } from '../log/erasure-marks.js';
import { RETENTION_STREAM } from '../log/events.js';
import { type ImportedEvent, type ImportedStreamEvent, checkEventLine, checkRetentionLine, corruptionReason, lineStream, parseJsonLine } from './lines.js';
import { type Trailer, ExportDigest, isTrailerValue, readTrailer } from './trailer.js';

/** What a complete, checked export held. */
export interface ExportRead {
  /** The fold of every event. */
  state: InMemoryState;
  /** The trailer it ended with (undefined only with `allowUntrailed`). */
  trailer: Trailer | undefined;
}

/** Checks the lines of one export, in order. */
export class ExportReader {
  /** The fold of the events read so far. */
  readonly state = new InMemoryState();
  readonly #digest = new ExportDigest();
  readonly #marks = new ErasureMarks();
  #trailer: { value: Trailer; lineNo: number } | undefined;
  #lineNo = 0;
  /** The seq of the last `retention` line read: those lines come after every `state` line. */
  #retentionSeq = 0;
  /** The time and line of the last line read of each stream, which the next line of that stream may not precede. */
  readonly #times = new Map<string, { time: string; lineNo: number }>();

  /**
   * Reads the next line (without its newline): the checked event it holds
   * (a `state` event with its change, or a `retention` event), or undefined
   * for the trailer. A line that is not what this library exports, or that
   * breaks a fold rule, is an {@link ExportFormatError} naming it.
   */
  read(line: string): ImportedEvent | ImportedStreamEvent | undefined {
    this.#lineNo += 1;
    const lineNo = this.#lineNo;
    if (this.#trailer !== undefined) throw new ExportFormatError(`a line after the trailer (line ${this.#trailer.lineNo}), which must be the last`, lineNo);
    const value = parseJsonLine(line, lineNo);
    if (isTrailerValue(value)) {
      const read = readTrailer(value);
      if (typeof read === 'string') throw new ExportFormatError(read, lineNo);
      this.#trailer = { value: read, lineNo };
      return undefined;
    }
    if (this.#retentionSeq > 0 || lineStream(value) === RETENTION_STREAM) {
      const event = checkRetentionLine(value, lineNo, this.#retentionSeq + 1);
      this.#checkTime(event.input, lineNo);
      this.#retentionSeq = event.seq;
      this.#digest.add(line);
      return event;
    }
    const event = checkEventLine(value, lineNo, this.state.seq + 1);
    this.#checkTime(event.input, lineNo);
    try {
      this.state.apply(event.change, event.seq);
    } catch (error) {
      if (error instanceof CorruptionError) throw new ExportFormatError(`${corruptionReason(error)} (the live API never writes this)`, lineNo);
      throw error;
    }
    const forged = this.#marks.add(event.change, event.seq);
    if (forged !== undefined) throw new ExportFormatError(`${forged} (the live API never writes this)`, lineNo);
    this.#digest.add(line);
    return event;
  }

  /**
   * Event times never decrease along a stream (docs/contract.md §7), and
   * selecting a point by time relies on it (§11): an export whose times go
   * back is refused, naming its line, rather than imported into a log that
   * `at({ time })` would misread.
   */
  #checkTime(event: { stream: string; time: string }, lineNo: number): void {
    const last = this.#times.get(event.stream);
    if (last !== undefined && event.time < last.time) {
      throw new ExportFormatError(
        `"time" ${event.time} is earlier than ${last.time}, the time of the ${event.stream} event before it (line ${last.lineNo}): times never decrease along a stream`,
        lineNo,
      );
    }
    this.#times.set(event.stream, { time: event.time, lineNo });
  }

  /**
   * Ends the reading: the trailer must be there and match every event line read; with `allowUntrailed`, an export
   * without a trailer (made before trailers existed) is accepted after the same checks.
   */
  finish(options: { allowUntrailed?: boolean | undefined } = {}): ExportRead {
    // The state lines come first, from seq 1: a state event's line number is its seq.
    const forged = this.#marks.finish();
    if (forged !== undefined) throw new ExportFormatError(`${forged.reason} (the live API never writes this)`, forged.seq);
    const read = this.#digest.finish();
    const trailer = this.#trailer;
    if (trailer === undefined) {
      if (options.allowUntrailed) return { state: this.state, trailer: undefined };
      const what = read.events === 0 ? 'the export is empty: it has no trailer line' : `the export ends after ${read.events} events without a trailer line`;
      throw new ExportFormatError(
        `${what}, so it may have been cut short (an export ends with {"trailer":{"events":N,"sha256":…}}); an export made before trailers existed imports with --allow-untrailed, after the same checks`,
      );
    }
    const { value, lineNo } = trailer;
    if (value.events !== read.events) {
      throw new ExportFormatError(`the trailer counts ${value.events} events but ${read.events} precede it: the export is incomplete or was edited`, lineNo);
    }
    if (value.sha256 !== read.sha256)
      throw new ExportFormatError('the sha256 of the trailer does not match the events before it: the export was changed or damaged', lineNo);
    return { state: this.state, trailer: value };
  }
}
