/**
 * The retention store (docs/contract.md §11): policies are set and removed
 * as events of the `retention` stream; `apply` sweeps what they expire.
 * Each tombstone is decided inside its own write transaction against the
 * record as stored then, so a record a concurrent writer just refreshed is
 * kept: a sweep removes only what a policy covers at the moment it commits.
 * What `purge` policies expire is erased instead, by one `records.purged`
 * event per sweep, decided the same way against the records as stored then.
 */
import { z } from 'zod';
import { NotFoundError } from '../errors.js';
import { type PurgedRecords, type StateChange, RETENTION_STREAM, RetentionEventTypes } from '../log/events.js';
import type { StateWriteTx } from '../write/backend.js';
import { idField } from '../records/fields.js';
import { parseInput } from '../records/inputs.js';
import { type PolicyChange, policyChangeSchema, type RetentionPolicy, type SetRetentionInput, setRetentionInputSchema } from '../records/retention.js';
import type { Scope } from '../records/records.js';
import { toScope } from '../records/scope.js';
import type { HybridLogicalClock } from '../time/hlc.js';
import type { Engine } from './engine.js';
import { count, sortedById } from './purge.js';
import { comparePolicyChanges, policyId, type RetentionJudge, type RetentionPolicies } from './retention-policies.js';

/** What one sweep tombstoned or purged, per record kind. */
export interface RetentionSweep {
  /** Sessions tombstoned or purged (a purged session takes its turns, counted in `turns`). */
  sessions: number;
  /** Turns tombstoned (only whole transcripts whose every live turn expired; see docs/contract.md §11) or purged (each expired turn). */
  turns: number;
  skills: number;
  memory: number;
}

/** What a merge of policy changes did, and the changes held after it. */
export interface PolicyMerge {
  /** Changes appended: those later than what was held for their policy. */
  received: number;
  /** The winning change of every policy ever set here, by id. */
  changes: PolicyChange[];
}

/** Retention policies and their sweep. */
export interface RetentionStore {
  /** Sets a policy (replacing one with the same `id`) and returns it. */
  set(input: SetRetentionInput): Promise<RetentionPolicy>;
  /** The policies in force, by id. */
  list(): Promise<RetentionPolicy[]>;
  /** Removes a policy and returns it; `NotFoundError` when there is none with that id. */
  remove(id: string): Promise<RetentionPolicy>;
  /**
   * Tombstones every live record a `tombstone` policy expires now, each in
   * its own write, then purges every live record a `purge` policy expires,
   * all in one `records.purged` event; returns the counts.
   */
  apply(): Promise<RetentionSweep>;
  /**
   * Takes another store's policy changes (docs/contract.md §12): checked whole, then each one later,
   * by HLC and origin, than the change held for its policy is appended; returns what it appended and
   * the changes held now (`merge([])` reads them). A `ValidationError` writes nothing.
   */
  merge(changes: readonly PolicyChange[]): Promise<PolicyMerge>;
}

/** A batch of policy changes from another store. */
const policyChangesSchema = z.array(policyChangeSchema);

/** The id of a policy set without one: it names what it covers, so setting the same target again replaces it. */
function defaultId(record: string, scope: readonly string[], memoryKind: string | undefined): string {
  return `${record}${memoryKind === undefined ? '' : `:${memoryKind}`}@${scope.length === 0 ? '*' : scope.join('/')}`;
}

/** Builds the retention store of a provider. */
export function createRetentionStore(
  engine: Engine,
  policies: RetentionPolicies,
  judge: () => Promise<RetentionJudge>,
  hlc: HybridLogicalClock,
): RetentionStore {
  const { backend, stamper } = engine;
  const log = backend.log;
  const q = backend.queries;
  return {
    async set(input) {
      const draft = parseInput(setRetentionInputSchema, input);
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
      // Folded first, the clock has observed every change held, so this one is later than each.
      await policies.current();
      // The log stamps the time, never before the policy event ahead of it (docs/contract.md §7): `setAt` is this writer's clock.
      await log.append({ stream: RETENTION_STREAM, type: RetentionEventTypes.PolicySet, payload: { policy, hlc: hlc.now() } });
      return policy;
    },
    list: () => policies.current(),
    async remove(id) {
      const key = parseInput(idField, id);
      const policy = (await policies.current()).find((p) => p.id === key);
      if (!policy) throw new NotFoundError('retention policy', key);
      await log.append({ stream: RETENTION_STREAM, type: RetentionEventTypes.PolicyRemoved, payload: { id: key, hlc: hlc.now() } });
      return policy;
    },
    async merge(batch) {
      const incoming = parseInput(policyChangesSchema, batch);
      const before = await policies.changes();
      const held = new Map(before.map((change) => [policyId(change), change]));
      let received = 0;
      for (const change of incoming) {
        hlc.observe(change.payload.hlc);
        const mine = held.get(policyId(change));
        if (mine !== undefined && comparePolicyChanges(change, mine) <= 0) continue;
        held.set(policyId(change), change);
        await log.append({ stream: RETENTION_STREAM, type: change.type, payload: change.payload });
        received += 1;
      }
      // Nothing appended: the changes read before are the store's, without reading them again.
      return { received, changes: received === 0 ? before : await policies.changes() };
    },
    async apply() {
      const j = await judge();
      const swept: RetentionSweep = { sessions: 0, turns: 0, skills: 0, memory: 0 };
      const toPurge = new Map<string, PurgeCandidate>();
      const purgePolicies = new Set<string>();
      /** Tombstones a whole expired record in its own write, decided against the record as stored then. */
      const tombstone = async (tx: StateWriteTx, { kind, id }: PurgeCandidate): Promise<StateChange | undefined> => {
        if (kind === 'session') {
          const now = await tx.session(id);
          return now && !now.deleted && j.session(now) ? stamper.deleteSession(now, now.id) : undefined;
        }
        if (kind === 'skill') {
          const now = await tx.skill(id);
          return now && !now.deleted && j.skill(now) ? stamper.deleteSkill(now) : undefined;
        }
        const now = await tx.memoryItem(id);
        return now && !now.deleted && j.memory(now) ? stamper.deleteMemory(now, now.id) : undefined;
      };
      /** Notes an expired record for the purge, or tombstones it (counted in `swept`). */
      const expire = async (policy: RetentionPolicy, candidate: PurgeCandidate): Promise<void> => {
        if (policy.action === 'purge') {
          toPurge.set(candidate.id, candidate);
          purgePolicies.add(policy.id);
        } else if (candidate.kind !== 'turn' && (await engine.mutateIfNeeded((tx) => tombstone(tx, candidate)))) {
          swept[({ session: 'sessions', skill: 'skills', memory: 'memory' } as const)[candidate.kind]] += 1;
        }
      };
      for (const policy of j.policies) {
        const scopes = { scopes: [policy.scope], descendantsOf: policy.scope };
        if (policy.record === 'memory') {
          const kinds = policy.memoryKind === null ? {} : { kinds: [policy.memoryKind] };
          const hits = await q.searchMemory({ tokens: [], limit: 0, order: 'recent', ...scopes, ...kinds });
          for (const { record } of hits) if (j.memory(record)) await expire(policy, { kind: 'memory', id: record.id });
        } else if (policy.record === 'skill') {
          for (const skill of await q.listSkills(policy.scope, { includeDescendants: true }))
            if (j.skill(skill)) await expire(policy, { kind: 'skill', id: skill.id });
        } else {
          for (const session of await q.listSessions({ limit: 0, offset: 0, ...scopes })) {
            if (policy.record === 'session') {
              if (j.session(session)) await expire(policy, { kind: 'session', id: session.id });
              continue;
            }
            const live = await q.turns(session.id, { afterSeq: 0, limit: 0 });
            if (policy.action === 'purge') {
              // A purge erases single turns, so every expired turn goes, younger ones after it or not.
              for (const turn of live) if (j.turn(turn, session.scope)) await expire(policy, { kind: 'turn', id: turn.id, scope: session.scope });
              continue;
            }
            // Only a whole transcript can be tombstoned (the log removes suffixes); older turns of a
            // transcript with newer ones stay stored, and invisible, until the rest expires too.
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
      if (toPurge.size > 0) {
        const purged = await purgeExpired(engine, j, [...toPurge.values()], `retention: ${[...purgePolicies].sort().join(', ')}`);
        for (const kind of ['sessions', 'turns', 'skills', 'memory'] as const) swept[kind] += purged[kind].length;
      }
      return swept;
    },
  };
}

/** A record a `purge` policy expired when the sweep listed it (a turn with its session's scope). */
type PurgeCandidate = { kind: 'session' | 'skill' | 'memory'; id: string } | { kind: 'turn'; id: string; scope: Scope };

/**
 * Purges, in one `records.purged` event, the candidates still live and still
 * expired as stored inside the write (a purged session takes every turn it
 * had); returns what it erased (nothing, and no event, when none is left).
 */
async function purgeExpired(engine: Engine, j: RetentionJudge, candidates: readonly PurgeCandidate[], reason: string): Promise<PurgedRecords> {
  let erased: PurgedRecords = { sessions: [], turns: [], skills: [], memory: [] };
  await engine.mutateIfNeeded(async (tx) => {
    const out: PurgedRecords = { sessions: [], turns: [], skills: [], memory: [] };
    for (const candidate of candidates) {
      const found = await tx.purgeable({ id: candidate.id });
      if (candidate.kind === 'session') {
        const now = found.sessions[0];
        if (!now || now.deleted || !j.session(now)) continue;
        out.sessions.push(now);
        out.turns.push(...found.turns);
      } else if (candidate.kind === 'turn') {
        const now = found.turns.find((t) => t.id === candidate.id);
        if (now && !now.deleted && j.turn(now, candidate.scope)) out.turns.push(now);
      } else if (candidate.kind === 'skill') {
        const now = found.skills[0];
        if (now && !now.deleted && j.skill(now)) out.skills.push(now);
      } else {
        const now = found.memory[0];
        if (now && !now.deleted && j.memory(now)) out.memory.push(now);
      }
    }
    // An expired turn of a purged session comes with it and on its own: once.
    erased = sortedById({ ...out, turns: [...new Map(out.turns.map((t) => [t.id, t])).values()] });
    return count(erased) === 0 ? undefined : engine.stamper.purge(erased, reason.slice(0, 500));
  });
  return erased;
}
