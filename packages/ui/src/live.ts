/**
 * Live updates: the head of the `state` stream, pushed to every open page
 * as server-sent events whenever it moves. A log that can be subscribed to
 * (PostgreSQL's LISTEN/NOTIFY) is followed; any other (a SQLite file that
 * another process writes) is polled, and only while a page is listening.
 */
import type { ServerResponse } from 'node:http';
import type { Log, LogEvent } from '@agentstate/core';
import { STATE_STREAM } from '@agentstate/core';

interface Subscribable {
  subscribe(options: { afterSeq: number }): AsyncIterable<LogEvent> & { close(): Promise<void> };
}

function isSubscribable(log: Log): log is Log & Subscribable {
  return typeof (log as Partial<Subscribable>).subscribe === 'function';
}

/** Sends the stream head to the pages that listen. */
export class HeadFeed {
  readonly #log: Log;
  readonly #intervalMs: number;
  readonly #clients = new Set<ServerResponse>();
  #head = -1;
  #timer: NodeJS.Timeout | undefined;
  #subscription: (AsyncIterable<LogEvent> & { close(): Promise<void> }) | undefined;
  #closed = false;

  constructor(log: Log, intervalMs: number) {
    this.#log = log;
    this.#intervalMs = intervalMs;
  }

  /** Makes `res` an event stream that gets the head now and at every change, until it closes. */
  async attach(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    this.#clients.add(res);
    res.on('close', () => {
      this.#clients.delete(res);
      if (this.#clients.size === 0) this.#stop();
    });
    const head = await this.#log.head(STATE_STREAM);
    this.#head = Math.max(this.#head, head);
    res.write(`data: ${JSON.stringify({ head: this.#head })}\n\n`);
    this.#start();
  }

  #publish(head: number): void {
    if (head <= this.#head) return;
    this.#head = head;
    for (const res of this.#clients) res.write(`data: ${JSON.stringify({ head })}\n\n`);
  }

  #start(): void {
    if (this.#closed || this.#timer || this.#subscription) return;
    if (isSubscribable(this.#log)) {
      const subscription = this.#log.subscribe({ afterSeq: this.#head });
      this.#subscription = subscription;
      void (async () => {
        try {
          for await (const event of subscription) this.#publish(event.seq);
        } catch {
          // A lost connection ends the feed; the page keeps its last state.
        }
      })();
      return;
    }
    const poll = async (): Promise<void> => {
      try {
        this.#publish(await this.#log.head(STATE_STREAM));
      } catch {
        // A busy or closing database: try again at the next tick.
      }
      if (this.#timer) this.#timer = setTimeout(() => void poll(), this.#intervalMs);
    };
    this.#timer = setTimeout(() => void poll(), this.#intervalMs);
  }

  #stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#subscription?.close();
    this.#subscription = undefined;
  }

  /** Ends every stream and stops watching. */
  close(): void {
    this.#closed = true;
    this.#stop();
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}
