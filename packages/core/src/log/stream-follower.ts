/**
 * Folding a small side stream of the log (`retention`, `sync`) incrementally: each read applies
 * only the events appended since the last, so a read costs one `head` when nothing changed.
 */
import type { Log, LogEvent } from './log.js';

/** Applies the events of one stream of a log once each, in order, as they are appended. */
export class StreamFollower {
  #seq = 0;

  constructor(
    private readonly log: Log,
    private readonly stream: string,
    private readonly apply: (event: LogEvent) => void,
  ) {}

  /** Applies every event appended to the stream since the last call. */
  async catchUp(): Promise<void> {
    const head = await this.log.head(this.stream);
    while (this.#seq < head) {
      const batch = await this.log.read({ stream: this.stream, afterSeq: this.#seq, limit: 1_000 });
      if (batch.length === 0) break;
      for (const event of batch) {
        // Two reads racing fold the same events: apply each once, in order.
        if (event.seq !== this.#seq + 1) continue;
        this.apply(event);
        this.#seq = event.seq;
      }
    }
  }
}
