/**
 * The check that every `erasedBy` in a log is true (docs/contract.md §7,
 * "Purge"): an event marked `erasedBy: n` comes before seq n, the event at
 * n is a `records.purged`, that purge names a record the marked event
 * carries, and each record it names is in the marked event in its erased
 * form. A forged mark would have history show a version as erased beside its
 * intact text. Import (the export reader) and verify feed it every `state`
 * change in seq order; the marks wait for the purge they name, which comes later.
 */
import { changeRecordIds, changeRecords } from './changes.js';
import { type StateChange, EventTypes } from './events.js';
import { inErasedForm } from './holds.js';
import { entryFor } from '../map-entry.js';

/** A marked event waiting for its purge. */
interface Mark {
  seq: number;
  /** The ids of the records it carries. */
  carried: string[];
  /** Those of them it holds in other than their erased form. */
  intact: string[];
}

/** Follows the `erasedBy` marks of one `state` stream, read in seq order. */
export class ErasureMarks {
  readonly #waiting = new Map<number, Mark[]>();
  #seq = 0;

  /** Takes the change at `seq`: why a mark it carries, or one that names it, is false, or undefined. */
  add(change: StateChange, seq: number): string | undefined {
    this.#seq = seq;
    const named = this.#waiting.get(seq);
    if (named !== undefined) {
      this.#waiting.delete(seq);
      const problem = settle(named, change, seq);
      if (problem !== undefined) return problem;
    }
    const erasedBy = 'erasedBy' in change.payload ? change.payload.erasedBy : undefined;
    if (erasedBy === undefined) return undefined;
    if (erasedBy <= seq) return `event ${seq} is marked erased by ${erasedBy}, which is not a later event`;
    const mark: Mark = { seq, carried: changeRecordIds(change), intact: intactIds(change) };
    entryFor(this.#waiting, erasedBy, () => []).push(mark);
    return undefined;
  }

  /** After the last change: the first mark that names a seq past it (its event's seq, and why it is false), or undefined. */
  finish(): { seq: number; reason: string } | undefined {
    // The first waiting entry holds the earliest mark still waiting.
    const first = this.#waiting.entries().next();
    if (first.done) return undefined;
    const [erasedBy, marks] = first.value;
    const seq = marks[0]!.seq;
    return { seq, reason: `event ${seq} is marked erased by ${erasedBy}, but the log ends at seq ${this.#seq}` };
  }
}

/** Why the marks naming the change at `seq` are false, or undefined. */
function settle(marks: readonly Mark[], change: StateChange, seq: number): string | undefined {
  if (change.type !== EventTypes.RecordsPurged) return `event ${marks[0]!.seq} is marked erased by ${seq}, which is a ${change.type}, not a records.purged`;
  const purged = new Set(changeRecordIds(change));
  for (const mark of marks) {
    if (!mark.carried.some((id) => purged.has(id))) return `event ${mark.seq} is marked erased by ${seq}, which purged none of its records`;
    const intact = mark.intact.find((id) => purged.has(id));
    if (intact !== undefined) return `event ${mark.seq} is marked erased by ${seq} but holds ${JSON.stringify(intact)}, which that purge erased, intact`;
  }
  return undefined;
}

/** The ids of the records `change` holds in other than their erased form (a session it leaves to the fold holds nothing). */
function intactIds(change: StateChange): string[] {
  return changeRecords(change).flatMap((entry) =>
    (entry.kind === 'session' || entry.kind === 'turn' || entry.kind === 'skill' || entry.kind === 'memory') && !inErasedForm(entry.kind, entry.record as never)
      ? [entry.record.id]
      : [],
  );
}
