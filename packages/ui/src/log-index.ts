/**
 * What the page needs from the whole log that no provider call answers:
 * the number of events of each type, and each skill's history (its versions
 * and every outcome, for the evidence chart). Built by one pass over the
 * log on first use, then kept up to date by reading only the events after
 * the last one seen, so a store of a million events is scanned once per
 * server, not once per request.
 */
import type { Log } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';
import { skillIdOf } from './event-fields.js';

/** One event of a skill's history, with the counts after it. */
export interface SkillPoint {
  seq: number;
  time: string;
  type: string;
  version: number;
  uses: number;
  wins: number;
}

const BATCH = 5_000;

/** An index of the `state` stream, advanced on demand. */
export class LogIndex {
  readonly #log: Log;
  readonly #types = new Map<string, number>();
  readonly #skills = new Map<string, SkillPoint[]>();
  #seen = 0;
  #advancing: Promise<void> = Promise.resolve();

  constructor(log: Log) {
    this.#log = log;
  }

  /** Reads the events after the last one seen; concurrent callers share one pass. */
  advance(): Promise<void> {
    // A failed pass leaves the index where it was; the next call retries.
    const next = this.#advancing.then(
      () => this.#readNew(),
      () => this.#readNew(),
    );
    this.#advancing = next;
    return next;
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const batch = await this.#log.read({ stream: STATE_STREAM, afterSeq: this.#seen, limit: BATCH });
      if (batch.length === 0) return;
      for (const event of batch) {
        this.#types.set(event.type, (this.#types.get(event.type) ?? 0) + 1);
        const id = skillIdOf(event);
        if (id !== undefined) {
          const skill = (event.payload as { skill: { version: number; uses: number; wins: number } }).skill;
          const points = this.#skills.get(id) ?? [];
          if (points.length === 0) this.#skills.set(id, points);
          points.push({ seq: event.seq, time: event.time, type: event.type, version: skill.version, uses: skill.uses, wins: skill.wins });
        }
      }
      this.#seen = batch[batch.length - 1]!.seq;
    }
  }

  /** Events by type, as of the last {@link advance}. */
  countsByType(): Record<string, number> {
    return Object.fromEntries([...this.#types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** The history of the skill with `id`, oldest first, as of the last {@link advance}. */
  skillHistory(id: string): readonly SkillPoint[] {
    return this.#skills.get(id) ?? [];
  }
}
