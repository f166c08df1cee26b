/**
 * Hybrid score fusion (docs/contract.md §6): combines each leg's own score in
 * [0, 1] (the squashed BM25 score of the lexical leg, the clamped cosine
 * similarity of the semantic leg; 0 where a leg did not find the item) into
 * one score in [0, 1] that hybrid recall reports and orders by:
 *
 *     score = 1 − (1 − lexical)^wₗ · (1 − semantic)^wₛ
 *
 * Read each leg's score as a chance that the item is relevant and each
 * weight as how many independent votes that leg casts: the score is the
 * chance that at least one vote says relevant. It is monotone in each leg,
 * never below a leg whose weight is at least 1 (so with the default lexical
 * weight 1 a perfect lexical match scores 1 whatever the semantic leg
 * found), and higher when both legs agree.
 */
import { compareStrings } from '../records/order.js';

/** One leg's hit: an id and that leg's own score (clamped into [0, 1]). */
export interface LegHit {
  id: string;
  score: number;
}

/** One fused hit. */
export interface FusedHit {
  id: string;
  /** The combined score in [0, 1]. */
  score: number;
  /** Each leg's own score in [0, 1], 0 where the leg did not find the id. */
  legs: { lexical: number; semantic: number };
}

/** Clamps a score into [0, 1] (a cosine similarity may be negative); NaN counts as 0. */
export function unitScore(x: number): number {
  return Number.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
}

/**
 * The hybrid score of one item: `1 − (1 − lexical)^wₗ · (1 − semantic)^wₛ`,
 * each leg clamped into [0, 1], weights non-negative (a weight of 0 ignores
 * its leg).
 */
export function combineScores(lexical: number, semantic: number, weights: { lexical: number; semantic: number }): number {
  const missLexical = (1 - unitScore(lexical)) ** Math.max(0, weights.lexical);
  const missSemantic = (1 - unitScore(semantic)) ** Math.max(0, weights.semantic);
  return unitScore(1 - missLexical * missSemantic);
}

/**
 * Whether a score makes a hit (docs/contract.md §6): only a score above 0
 * does. A semantic score of 0 is a similarity at or below 0, a vector at
 * right angles to the query's or pointing away: it shares no meaning with
 * the query, so it is no match, however near the store ranks it.
 */
export function isMatchScore(score: number): boolean {
  return score > 0;
}

/**
 * Fuses the two legs of a hybrid recall (or search): every id either leg
 * matched, with its leg scores and combined score, best first, ties by id.
 * An id whose combined score is 0 (the semantic leg's similarity at or below
 * 0 and no lexical match, or a match only in a leg of weight 0) is left out.
 */
export function fuseLegs(lexical: readonly LegHit[], semantic: readonly LegHit[], weights: { lexical: number; semantic: number }): FusedHit[] {
  const legs = new Map<string, { lexical: number; semantic: number }>();
  const leg = (id: string) => legs.get(id) ?? { lexical: 0, semantic: 0 };
  for (const h of lexical) legs.set(h.id, { ...leg(h.id), lexical: Math.max(leg(h.id).lexical, unitScore(h.score)) });
  for (const h of semantic) legs.set(h.id, { ...leg(h.id), semantic: Math.max(leg(h.id).semantic, unitScore(h.score)) });
  const out = [...legs].map(([id, scores]) => ({ id, legs: scores, score: combineScores(scores.lexical, scores.semantic, weights) }));
  return out.filter((f) => isMatchScore(f.score)).sort((a, b) => b.score - a.score || compareStrings(a.id, b.id));
}
