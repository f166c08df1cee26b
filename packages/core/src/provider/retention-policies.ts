/**
 * Reading retention policies from the `retention` stream, and judging which
 * records they expire at an instant (docs/contract.md §11). Every process
 * folds the same stream, so every process and face agrees on the policies.
 */
import { CorruptionError } from '../errors.js';
import { RETENTION_STREAM, RetentionEventTypes } from '../log/events.js';
import { canonicalJson } from '../log/json.js';
import type { Log, LogEvent } from '../log/log.js';
import { StreamFollower } from '../log/stream-follower.js';
import { compareStrings } from '../records/order.js';
import type { MemoryItem, Scope, Session, Skill, Turn } from '../records/records.js';
import { type PolicyChange, type RetentionPolicy, type RetentionRecord, retentionPayloadSchema } from '../records/retention.js';
import { scopeStartsWith } from '../records/scope.js';
import { compareHlc, type HybridLogicalClock } from '../time/hlc.js';
import { type Instant, instantToMs } from '../time/instant.js';

/** The id of the policy `change` sets or removes. */
export const policyId = (change: PolicyChange): string => ('policy' in change.payload ? change.payload.policy.id : change.payload.id);

/**
 * The last-writer-wins order of two changes of one policy (docs/contract.md §12): by HLC, then
 * origin, then canonical JSON, so any two different changes are ordered alike on every replica.
 */
export function comparePolicyChanges(a: PolicyChange, b: PolicyChange): number {
  return compareHlc(a.payload.hlc, b.payload.hlc) || compareStrings(a.payload.origin, b.payload.origin) || compareStrings(canonicalJson(a), canonicalJson(b));
}

/**
 * The policies of a log's `retention` stream, folded incrementally: a read costs one `head` when
 * nothing changed. Per policy id it keeps the winning change, a removal included, so a change
 * received later that is older than it changes nothing.
 */
export class RetentionPolicies {
  #own: string | undefined;
  readonly #changes = new Map<string, PolicyChange>();
  readonly #follower: StreamFollower;

  /** `hlc`, when given, observes every HLC folded, so a policy changed here next is later. */
  constructor(
    private readonly log: Log,
    private readonly hlc?: HybridLogicalClock,
  ) {
    this.#follower = new StreamFollower(log, RETENTION_STREAM, (event) => this.#apply(event, this.#own!));
  }

  /** The policies in force, by id. */
  async current(): Promise<RetentionPolicy[]> {
    return (await this.changes()).flatMap((change) => ('policy' in change.payload ? [change.payload.policy] : []));
  }

  /** The winning change of every policy ever set, by id: what a sync sends. */
  async changes(): Promise<PolicyChange[]> {
    this.#own ??= await this.log.identity();
    await this.#follower.catchUp();
    return [...this.#changes.values()].sort((a, b) => compareStrings(policyId(a), policyId(b)));
  }

  #apply({ type, payload, seq, time }: LogEvent, own: string): void {
    const schema = retentionPayloadSchema(type);
    if (schema === undefined) throw new CorruptionError(RETENTION_STREAM, seq, `unknown event type ${JSON.stringify(type)}`);
    const parsed = schema.safeParse(payload);
    if (!parsed.success) throw new CorruptionError(RETENTION_STREAM, seq, `the payload of ${type} does not match its schema`, { cause: parsed.error });
    const { hlc, origin, ...data } = parsed.data;
    // A change written before policies synced has no HLC: the stream's order decided then, and its time stands in for one.
    const stamp = { hlc: hlc ?? { wall: Math.max(0, instantToMs(time)), counter: 0 }, origin: origin ?? own };
    const change: PolicyChange =
      'policy' in data
        ? { type: RetentionEventTypes.PolicySet, payload: { ...data, ...stamp } }
        : { type: RetentionEventTypes.PolicyRemoved, payload: { ...data, ...stamp } };
    const held = this.#changes.get(policyId(change));
    if (hlc === undefined || held === undefined || comparePolicyChanges(change, held) > 0) this.#changes.set(policyId(change), change);
    this.hlc?.observe(stamp.hlc);
  }
}

/** Which policies expire which records at one instant. */
export class RetentionJudge {
  readonly #now: number;

  constructor(
    /** The policies in force. */
    readonly policies: readonly RetentionPolicy[],
    now: Instant,
  ) {
    this.#now = instantToMs(now);
  }

  /** True when no policy covers `record` kinds at all: reads need no filtering. */
  covers(record: RetentionRecord): boolean {
    return this.policies.some((p) => p.record === record);
  }

  /** The first policy (by id) that expires a record of this kind, scope, memory kind and age basis. */
  expiring(record: RetentionRecord, scope: Scope, since: Instant, memoryKind?: string): RetentionPolicy | undefined {
    const age = this.#now - instantToMs(since);
    return this.policies.find(
      (p) => p.record === record && age >= p.maxAgeMs && scopeStartsWith(scope, p.scope) && (p.memoryKind === null || p.memoryKind === memoryKind),
    );
  }

  /** True when a session has been idle (since `updatedAt`) past a policy covering it. */
  session(session: Session): boolean {
    return this.expiring('session', session.scope, session.updatedAt) !== undefined;
  }

  /** True when a turn of a session in `scope` is older (since `createdAt`) than a policy allows. */
  turn(turn: Turn, scope: Scope): boolean {
    return this.expiring('turn', scope, turn.createdAt) !== undefined;
  }

  /** True when a memory item was last written longer ago than a policy allows. */
  memory(item: MemoryItem): boolean {
    return this.expiring('memory', item.scope, item.updatedAt, item.kind) !== undefined;
  }

  /** True when a skill was last changed longer ago than a policy allows. */
  skill(skill: Skill): boolean {
    return this.expiring('skill', skill.scope, skill.updatedAt) !== undefined;
  }
}
