/**
 * Recall (docs/contract.md §4, §6): lexical, semantic or hybrid, ranked by
 * the pipeline transcript search shares (`ranking.ts`) over live memory
 * items of the selected scopes, kinds and metadata, leaving out items
 * expired at the provider clock.
 */
import { copyMemoryItem } from '../records/copy.js';
import { type RecallOptions, parseInput, recallOptionsSchema } from '../records/inputs.js';
import type { MemoryItem } from '../records/records.js';
import { selectScopes } from '../records/scope.js';
import type { StateQueries, VectorQuery } from '../write/backend.js';
import type { Instant } from '../time/instant.js';
import type { RecallHit } from './types.js';
import { type Page, toPage } from '../paging/cursor.js';
import { type RankingContext, rankedPage } from './ranking.js';
import { WORKING_MEMORY } from './working-memory.js';

/** What recall needs from its provider. */
export interface RecallContext extends RankingContext<MemoryItem, VectorQuery> {
  queries: StateQueries;
  /** The provider clock as an instant: items expired at it are left out. */
  now: () => Instant;
}

/** Runs one recall. */
export async function recall(ctx: RecallContext, options: RecallOptions): Promise<Page<RecallHit>> {
  const o = parseInput(recallOptionsSchema, options);
  const { cursor: _cursor, limit: _limit, ...bound } = o;
  // Working memory is a scope's pinned document, not a fact to recall: left out unless `kinds` asks for it.
  const filter = { ...selectScopes(o), kinds: o.kinds, ...(o.kinds ? {} : { exceptKinds: [WORKING_MEMORY] }), where: o.where, now: ctx.now() };
  const page = await rankedPage(ctx, {
    method: 'memory.recall',
    noun: 'recall',
    options: o,
    bound,
    narrow: async () => filter,
    lexical: (f, query) => ctx.queries.searchMemory({ ...f, ...query }),
  });
  return toPage(
    page.map((h) => ({ ...copyMemoryItem(h.record), score: h.score })),
    page.nextCursor,
  );
}
