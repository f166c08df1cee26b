/**
 * Reciprocal rank fusion: merges ranked lists by summing `1 / (k + rank)`.
 * It needs no score calibration between lexical and vector rankers, which
 * is why hybrid recall uses it.
 */
import { compareStrings } from '../records/order.js';

/** The conventional RRF constant; larger values flatten the head of each list. */
export const RRF_K = 60;

/** One fused hit. */
export interface FusedHit {
  id: string;
  /** Normalised to [0, 1]: 1 for an item ranked first by every list. */
  score: number;
  /** 1-based rank in each input list, or undefined where absent. */
  ranks: (number | undefined)[];
}

/**
 * Fuses ranked id lists (best first). `weights` scale each list's
 * contribution (default 1 each). Ties break by id for a total order.
 */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], options: { k?: number; weights?: readonly number[] } = {}): FusedHit[] {
  const k = options.k ?? RRF_K;
  const weights = lists.map((_, i) => options.weights?.[i] ?? 1);
  const best = weights.reduce((sum, w) => sum + w / (k + 1), 0);
  const hits = new Map<string, FusedHit>();
  lists.forEach((list, li) => {
    list.forEach((id, index) => {
      let hit = hits.get(id);
      if (!hit) {
        hit = { id, score: 0, ranks: lists.map(() => undefined) };
        hits.set(id, hit);
      }
      if (hit.ranks[li] === undefined) {
        hit.ranks[li] = index + 1;
        hit.score += weights[li]! / (k + index + 1);
      }
    });
  });
  const out = [...hits.values()];
  for (const hit of out) hit.score = best > 0 ? Math.min(1, hit.score / best) : 0;
  return out.sort((a, b) => b.score - a.score || compareStrings(a.id, b.id));
}
