/**
 * Upcasters migrate old payload shapes on read, one schema version at a time,
 * so the fold only ever sees the current shape.
 */
import { entryFor } from '../map-entry.js';

/** Turns a payload of `fromVersion` into one of `fromVersion + 1`. */
export type Upcaster = (payload: unknown) => unknown;

/** A registry of upcasters keyed by event type and source version. */
export class UpcasterRegistry {
  readonly #byType = new Map<string, Map<number, Upcaster>>();

  /** Registers how `type` payloads of `fromVersion` become `fromVersion + 1`. */
  register(type: string, fromVersion: number, upcaster: Upcaster): this {
    entryFor(this.#byType, type, () => new Map()).set(fromVersion, upcaster);
    return this;
  }

  /** The step registered for `type` payloads of `fromVersion`, if any. */
  step(type: string, fromVersion: number): Upcaster | undefined {
    return this.#byType.get(type)?.get(fromVersion);
  }

  /**
   * Migrates `payload` from `version` up to `target`, taking each step from
   * this registry, else from `fallback`. Returns undefined when a step is
   * missing from both, which the decoder reports as corruption.
   */
  upcast(type: string, version: number, target: number, payload: unknown, fallback?: UpcasterRegistry): unknown {
    let current = payload;
    for (let v = version; v < target; v += 1) {
      const step = this.step(type, v) ?? fallback?.step(type, v);
      if (!step) return undefined;
      current = step(current);
    }
    return current;
  }
}
