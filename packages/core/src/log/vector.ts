/** What a store holds of each origin (docs/contract.md §12, "Sync"), as every log answers it. */
import type { Vector } from './log.js';

/** True when `vector` lacks the event at `originSeq` of `origin`: it names no such origin, or a lower seq. */
export function lacks(vector: Vector, origin: string, originSeq: number): boolean {
  return originSeq > (Object.hasOwn(vector, origin) ? vector[origin]! : 0);
}

/** What a store holding both `a` and `b` holds: each origin's higher seq. */
export function mergeVectors(a: Vector, b: Vector): Vector {
  const out: Record<string, number> = { ...a };
  for (const [origin, seq] of Object.entries(b)) out[origin] = Math.max(out[origin] ?? 0, seq);
  return out;
}
