/**
 * Reading retention policies from the `retention` stream, and judging which
 * records they expire at an instant (docs/contract.md §11). Every process
 * folds the same stream, so every process and face agrees on the policies.
 */
import { CorruptionError } from '../errors.js';
import { RETENTION_STREAM } from '../log/events.js';
import type { Log } from '../log/log.js';
import { compareStrings } from '../records/order.js';
import type { MemoryItem, Scope, Session, Skill, Turn } from '../records/records.js';
import { type RetentionPolicy, type RetentionRecord, retentionPayloadSchema } from '../records/retention.js';
import { scopeStartsWith } from '../records/scope.js';
import { type Instant, instantToMs } from '../time/instant.js';

/** The policies of a log's `retention` stream, folded incrementally: a read costs one `head` when nothing changed. */
export class RetentionPolicies {
  #seq = 0;
  readonly #policies = new Map<string, RetentionPolicy>();

  constructor(private readonly log: Log) {}

  /** The policies in force, by id. */
  async current(): Promise<RetentionPolicy[]> {
    const head = await this.log.head(RETENTION_STREAM);
    while (this.#seq < head) {
      const batch = await this.log.read({ stream: RETENTION_STREAM, afterSeq: this.#seq, limit: 1_000 });
      if (batch.length === 0) break;
      for (const event of batch) {
        // Two reads racing fold the same events: apply each once, in order.
        if (event.seq !== this.#seq + 1) continue;
        this.#apply(event.type, event.payload, event.seq);
        this.#seq = event.seq;
      }
    }
    return [...this.#policies.values()].sort((a, b) => compareStrings(a.id, b.id));
  }

  #apply(type: string, payload: unknown, seq: number): void {
    const schema = retentionPayloadSchema(type);
    if (schema === undefined) throw new CorruptionError(RETENTION_STREAM, seq, `unknown event type ${JSON.stringify(type)}`);
    const parsed = schema.safeParse(payload);
    if (!parsed.success) throw new CorruptionError(RETENTION_STREAM, seq, `the payload of ${type} does not match its schema`, { cause: parsed.error });
    if ('policy' in parsed.data) this.#policies.set(parsed.data.policy.id, parsed.data.policy);
    else this.#policies.delete(parsed.data.id);
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
