/**
 * The retention store (docs/contract.md §11): policies are set and removed
 * as events of the `retention` stream; `apply` sweeps what they expire.
 * Each tombstone is decided inside its own write transaction against the
 * record as stored then, so a record a concurrent writer just refreshed is
 * kept: a sweep removes only what a policy covers at the moment it commits.
 */
import { NotFoundError, UnavailableError } from '../errors.js';
import { RETENTION_STREAM, RetentionEventTypes } from '../log/events.js';
import { idField } from '../records/fields.js';
import { parseInput } from '../records/inputs.js';
import type { RetentionPolicy, SetRetentionInput } from '../records/retention.js';
import { setRetentionInputSchema } from '../records/retention.js';
import { toScope } from '../records/scope.js';
import type { Engine } from './engine.js';
import type { RetentionJudge, RetentionPolicies } from './retention-policies.js';

/** What one sweep tombstoned, per record kind. */
export interface RetentionSweep {
  sessions: number;
  /** Turns tombstoned (only whole transcripts whose every live turn expired; see docs/contract.md §11). */
  turns: number;
  skills: number;
  memory: number;
}

/** Retention policies and their sweep. */
export interface RetentionStore {
  /**
   * Sets a policy (replacing one with the same `id`) and returns it. A
   * `purge` policy is an `UnavailableError` until erasure ships.
   */
  set(input: SetRetentionInput): Promise<RetentionPolicy>;
  /** The policies in force, by id. */
  list(): Promise<RetentionPolicy[]>;
  /** Removes a policy and returns it; `NotFoundError` when there is none with that id. */
  remove(id: string): Promise<RetentionPolicy>;
  /** Tombstones every live record a policy expires now, each in its own write; returns the counts. */
  apply(): Promise<RetentionSweep>;
}

/** The id of a policy set without one: it names what it covers, so setting the same target again replaces it. */
function defaultId(record: string, scope: readonly string[], memoryKind: string | undefined): string {
  return `${record}${memoryKind === undefined ? '' : `:${memoryKind}`}@${scope.length === 0 ? '*' : scope.join('/')}`;
}

/** Builds the retention store of a provider. */
export function createRetentionStore(engine: Engine, policies: RetentionPolicies, judge: () => Promise<RetentionJudge>): RetentionStore {
  const { backend, stamper } = engine;
  const log = backend.log;
  const q = backend.queries;
  return {
    async set(input) {
      const draft = parseInput(setRetentionInputSchema, input);
      if (draft.action === 'purge') {
        throw new UnavailableError('retention by purge needs erasure, which this version does not have: use action "tombstone"');
      }
      const setAt = stamper.now();
      const policy: RetentionPolicy = {
        id: draft.id ?? defaultId(draft.record, toScope(draft.scope), draft.memoryKind),
        scope: toScope(draft.scope),
        record: draft.record,
        memoryKind: draft.memoryKind ?? null,
        maxAgeMs: draft.maxAge,
        action: draft.action ?? 'tombstone',
        setAt,
      };
      await log.append({ stream: RETENTION_STREAM, type: RetentionEventTypes.PolicySet, payload: { policy }, time: setAt });
      return policy;
    },
    list: () => policies.current(),
    async remove(id) {
      const key = parseInput(idField, id);
      const policy = (await policies.current()).find((p) => p.id === key);
      if (!policy) throw new NotFoundError('retention policy', key);
      await log.append({ stream: RETENTION_STREAM, type: RetentionEventTypes.PolicyRemoved, payload: { id: key }, time: stamper.now() });
      return policy;
    },
    async apply() {
      const j = await judge();
      const swept: RetentionSweep = { sessions: 0, turns: 0, skills: 0, memory: 0 };
      for (const policy of j.policies) {
        const scopes = { scopes: [policy.scope], descendantsOf: policy.scope };
        if (policy.record === 'memory') {
          const kinds = policy.memoryKind === null ? {} : { kinds: [policy.memoryKind] };
          const hits = await q.searchMemory({ tokens: [], limit: 0, order: 'recent', ...scopes, ...kinds });
          for (const { record } of hits) {
            if (!j.memory(record)) continue;
            const done = await engine.mutateIfNeeded(async (tx) => {
              const now = await tx.memoryItem(record.id);
              return now && !now.deleted && j.memory(now) ? stamper.deleteMemory(now, now.id) : undefined;
            });
            if (done) swept.memory += 1;
          }
        } else if (policy.record === 'skill') {
          for (const skill of await q.listSkills(policy.scope, { includeDescendants: true })) {
            if (!j.skill(skill)) continue;
            const done = await engine.mutateIfNeeded(async (tx) => {
              const now = await tx.skill(skill.id);
              return now && !now.deleted && j.skill(now) ? stamper.deleteSkill(now) : undefined;
            });
            if (done) swept.skills += 1;
          }
        } else {
          for (const session of await q.listSessions({ limit: 0, offset: 0, ...scopes })) {
            if (policy.record === 'session') {
              if (!j.session(session)) continue;
              const done = await engine.mutateIfNeeded(async (tx) => {
                const now = await tx.session(session.id);
                return now && !now.deleted && j.session(now) ? stamper.deleteSession(now, now.id) : undefined;
              });
              if (done) swept.sessions += 1;
              continue;
            }
            // Only a whole transcript can be tombstoned (the log removes suffixes); older turns of a
            // transcript with newer ones stay stored, and invisible, until the rest expires too.
            const live = await q.turns(session.id, { afterSeq: 0, limit: 0 });
            if (live.length === 0 || !live.every((t) => j.turn(t, session.scope))) continue;
            const done = await engine.mutateIfNeeded(async (tx) => {
              const now = await tx.session(session.id);
              if (!now || now.deleted) return undefined;
              const turns = await tx.lastTurns(now.id, 0);
              return turns.length > 0 && turns.every((t) => j.turn(t, now.scope)) ? stamper.removeTurns(now, now.id, turns) : undefined;
            });
            if (done) swept.turns += done.payload.turns.length;
          }
        }
      }
      return swept;
    },
  };
}
