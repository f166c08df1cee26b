/**
 * How a store method takes part in idempotent writes (docs/contract.md §4):
 * it declares its name and the event types its result is read from, and
 * hands the engine its validated input. The engine does the rest (look-up,
 * conflict, replay, stamping `operation` into the payload), so a method
 * added later is idempotent by declaring an {@link OperationSpec}.
 */
import type { StateEventType } from '../log/events.js';

/** A store method as an idempotent operation. */
export interface OperationSpec {
  /** The method's name, e.g. `memory.write`: part of the input hash, so one id cannot serve two methods. */
  readonly method: string;
  /**
   * The event types the method appends. A retry answers with the original
   * event, which the store reads its result from exactly as from a fresh
   * one; an original of another type means a forged log.
   */
  readonly types: readonly StateEventType[];
}

/** One call of an operation: the caller's `operationId` (if any) and the input it covers. */
export interface OperationCall {
  readonly spec: OperationSpec;
  readonly operationId: string | undefined;
  /** The validated input without `operationId`, hashed with the method name. */
  readonly input: unknown;
}

/** A call of `spec` with a validated input that may hold `operationId`; the rest is the hashed input. */
export function operationCall<I extends { operationId?: string | undefined }>(spec: OperationSpec, draft: I): OperationCall {
  // Without an id the input is never hashed: no copy without the id is made for it.
  if (draft.operationId === undefined) return { spec, operationId: undefined, input: draft };
  const { operationId, ...input } = draft;
  return { spec, operationId, input };
}

/** The operations of one store, each named `<store>.<key>` (so a name cannot drift from its method), with the event types it appends. */
export function storeOperations<K extends string>(store: string, types: Record<K, readonly StateEventType[]>): Record<K, OperationSpec> {
  const specs = Object.entries<readonly StateEventType[]>(types).map(([key, t]) => [key, { method: `${store}.${key}`, types: t }]);
  return Object.fromEntries(specs) as Record<K, OperationSpec>;
}
