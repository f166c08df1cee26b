/** What a store sends (docs/contract.md §12): the events a vector lacks, of the whole store or of a subtree. */
import { ValidationError } from '../errors.js';
import { entryFor } from '../map-entry.js';
import { decodeStateEvent } from '../log/decode.js';
import type { Log, LogEvent } from '../log/log.js';
import type { UpcasterRegistry } from '../log/upcasters.js';
import type { Scope } from '../records/records.js';
import { isGlobalScope } from '../records/scope.js';
import { checkVector, syncLog } from './receive.js';
import { inSubtree, syncScope } from './scope.js';
import { type SyncEvent, type SyncPlace, toSyncEvent } from './wire.js';

/** Events read per page while a scoped answer is filtered. */
const PAGE = 1_000;

/** What a sender needs besides its log: the scope of a session, and the upcasters its events are read with. */
export interface SendContext {
  sessionScope(id: string): Promise<Scope | undefined>;
  upcasters?: UpcasterRegistry;
}

/**
 * The events `log` holds that `vector` lacks, in its seq order, at most `limit` (absent or 0: all),
 * in wire form: with `scope`, only those lying in that subtree; with `after`, only those held
 * after the event at that place, so a sync pages through them whatever its receiver notes.
 */
export async function sendChanges(
  log: Log,
  context: SendContext,
  vector: unknown,
  options: { limit?: number; scope?: unknown; after?: SyncPlace },
): Promise<SyncEvent[]> {
  const sync = syncLog(log);
  const limit = options.limit ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new ValidationError('limit', 'must be a non-negative safe integer (0: all)');
  const wanted = checkVector(vector);
  const scope = syncScope(options.scope);
  let afterSeq = 0;
  if (options.after !== undefined) {
    const { origin, originSeq } = options.after;
    const held = typeof origin === 'string' && Number.isSafeInteger(originSeq) ? await sync.atOrigin(origin, originSeq) : undefined;
    if (held === undefined) throw new ValidationError('after', 'must name the place of an event this store holds');
    afterSeq = held.seq;
  }
  const replicaId = await sync.identity();
  if (isGlobalScope(scope)) return (await sync.changes(wanted, limit, afterSeq)).map((event) => toSyncEvent(event, replicaId));
  const out: LogEvent[] = [];
  // One look-up per session for the whole answer, not one per turn.
  const sessions = new Map<string, Promise<Scope | undefined>>();
  const sessionScope = (id: string) => entryFor(sessions, id, () => context.sessionScope(id));
  for (;;) {
    const page = await sync.changes(wanted, PAGE, afterSeq);
    for (const event of page) {
      if (await inSubtree(decodeStateEvent(event, context.upcasters ? { upcasters: context.upcasters } : {}), scope, sessionScope)) out.push(event);
      if (out.length === limit && limit > 0) return out.map((held) => toSyncEvent(held, replicaId));
    }
    if (page.length < PAGE) return out.map((held) => toSyncEvent(held, replicaId));
    afterSeq = page.at(-1)!.seq;
  }
}
