/** Options every event-sourced provider built on core accepts. */
import { z } from 'zod';
import type { Embedder } from '../embedding/embedder.js';
import type { Entropy } from '../ids/entropy.js';
import type { IdGenerator } from '../ids/uuidv7.js';
import type { SnapshotCodec } from '../snapshot/codecs.js';
import type { EventMeta } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import { countField, idField, shortTextField } from '../records/fields.js';
import { parseInput } from '../records/inputs.js';
import type { Clock } from '../time/clock.js';

/** Options of {@link createStateProvider} and the providers built on it. */
export interface StateProviderOptions {
  /** Written into envelopes as origin and last writer. Default: a new UUIDv7. */
  instanceId?: string;
  /** Physical clock for instants and the HLC. Default: the system clock. */
  clock?: Clock;
  /** Entropy for the default id generator. Default: the OS. Seed it for reproducible ids. */
  entropy?: Entropy;
  /** Id generator. Default: a UUIDv7 generator over `clock` and `entropy`. */
  ids?: IdGenerator;
  /** Enables semantic and hybrid recall; recall is hybrid by default with one. */
  embedder?: Embedder;
  /**
   * Supplies an embedder, once, the first time semantic or hybrid recall is
   * asked for explicitly while no `embedder` is configured. Recall stays
   * lexical by default. Backends use it for their offline default.
   */
  defaultEmbedder?: () => Embedder | Promise<Embedder>;
  /**
   * Weights of the lexical and the semantic leg in hybrid recall's score,
   * `1 − (1 − lexical)^wₗ · (1 − semantic)^wₛ` (docs/contract.md §6).
   * Default: {@link DEFAULT_FUSION_WEIGHTS}; raise `semantic` for a strong
   * embedding model, lower it for a weak one. Keep `lexical` at 1 or more
   * so that hybrid never scores an item below its lexical score.
   */
  fusionWeights?: { lexical: number; semantic: number };
  /** Seals and opens snapshots. Default: {@link plainCodec}. */
  snapshotCodec?: SnapshotCodec;
  /** Save a snapshot automatically every k mutations (best effort). 0 or absent: never. */
  snapshotEvery?: number;
  /** Migrations for older payload shapes, applied when the log is folded. */
  upcasters?: UpcasterRegistry;
  /** Linkage written on every event this provider appends. */
  eventMeta?: EventMeta;
  /** Told about best-effort work that failed (automatic snapshots, background embedding). */
  onBackgroundError?: (error: unknown) => void;
}

/** Hybrid recall's default fusion weights, tuned on the recall development set (bench/). */
export const DEFAULT_FUSION_WEIGHTS = Object.freeze({ lexical: 1, semantic: 1.5 });

const weight = z.number().nonnegative().finite();
const meta = shortTextField.optional();

/** The options whose values end up in events or steer writes, checked before anything is opened. */
const checkedOptionsSchema = z.looseObject({
  instanceId: idField.optional(),
  snapshotEvery: countField.optional(),
  fusionWeights: z.strictObject({ lexical: weight, semantic: weight }).optional(),
  eventMeta: z.strictObject({ actor: meta, traceId: meta, spanId: meta, causationId: meta, originInstanceId: meta, principal: meta }).optional(),
});

/**
 * Refuses provider options that would stamp records or events the decoder
 * refuses (an `instanceId` with NUL or over the id limit, non-string linkage)
 * or that make no sense (a fractional `snapshotEvery`), with a `ValidationError`.
 */
export function checkProviderOptions(options: StateProviderOptions): void {
  parseInput(checkedOptionsSchema, options);
}
