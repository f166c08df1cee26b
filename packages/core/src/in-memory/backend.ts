/**
 * The in-memory {@link StateBackend}: an {@link InMemoryState} folded from a
 * {@link Log}. Append and project happen with nothing else in between: the
 * engine runs one mutation at a time, and projecting is synchronous. There
 * is no COMMIT to wait for: a committed change is final at once, so a
 * savepoint has nothing to undo as long as a mutation commits only after
 * deciding (and validating) all of its changes, which the engine does.
 */
import { ConflictError } from '../errors.js';
import { EventTypes, STATE_SCHEMA_VERSION, STATE_STREAM } from '../log/events.js';
import type { StateChange } from '../log/events.js';
import type { EventMeta, Log, LogEvent } from '../log/log.js';
import { InMemoryLog } from '../log/in-memory-log.js';
import { trustedAppend } from '../log/trusted.js';
import { storedPayload } from '../log/compact.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { StateBackend, StateQueries, StateWriteTx } from '../write/backend.js';
import { inMemoryQueries } from './queries.js';
import { InMemoryState } from './state.js';
import { InMemoryTurnVectorStore } from './turn-vectors.js';
import { InMemoryEmbeddingCache } from './embedding-cache.js';
import { InMemoryVectorStore } from './vectors.js';

/** A backend whose read model lives in process memory. */
export class InMemoryBackend implements StateBackend {
  readonly name = 'in-memory';
  readonly queries: StateQueries;
  readonly vectors: InMemoryVectorStore;
  readonly turnVectors: InMemoryTurnVectorStore;

  constructor(
    readonly log: Log,
    readonly state: InMemoryState = new InMemoryState(),
  ) {
    this.queries = inMemoryQueries(state);
    // One cache for both targets: a text embedded for a memory item serves a turn with the same text.
    const cache = new InMemoryEmbeddingCache();
    this.vectors = new InMemoryVectorStore(state, cache);
    this.turnVectors = new InMemoryTurnVectorStore(state, cache);
    this.#tx = { ...this.queries, commit: (change, meta) => this.#commit(change, meta), savepoint: (fn) => fn() };
  }

  readonly #tx: StateWriteTx;

  #inStep = false;

  async write<T>(fn: (tx: StateWriteTx) => Promise<T>): Promise<T> {
    if (!this.#inStep) {
      // A log written by someone else would make the next seq disagree with this
      // read model; refuse before writing rather than fork history.
      const head = await this.log.head(STATE_STREAM);
      if (head !== this.state.seq) {
        throw new ConflictError(`the log's state stream is at seq ${head} but this provider has folded ${this.state.seq}: open it with replay()`);
      }
      this.#inStep = true;
    }
    return fn(this.#tx);
  }

  async #commit(change: StateChange, meta: EventMeta): Promise<LogEvent> {
    const input = { ...meta, stream: STATE_STREAM, type: change.type, schemaVersion: STATE_SCHEMA_VERSION, payload: storedPayload(change) };
    // The stamper's payload is fresh, valid by construction and never touched again: an InMemoryLog keeps it
    // as is, unchecked. Any other log checks it as it would any append.
    const event = this.log instanceof InMemoryLog ? this.log[trustedAppend](input) : await this.log.append(input);
    if (event.seq !== this.state.seq + 1) {
      this.#inStep = false;
      throw new ConflictError(`the log's state stream moved to seq ${event.seq} behind this provider: open it with replay()`);
    }
    // The stamper built the change on this very state: the fold's rules hold by construction.
    this.state.apply(change, event.seq, false);
    // An update may change the content: its vector is derived again, like a new item's.
    if (change.type === EventTypes.MemoryDeleted || change.type === EventTypes.MemoryUpdated) this.vectors.forget(change.payload.item.id);
    return event;
  }

  maxHlc() {
    return this.state.maxHlc;
  }

  async capture(): Promise<Snapshot> {
    return this.state.capture();
  }

  async close(): Promise<void> {}
}
