/**
 * Readers that follow the `state` stream from a seq, as a tailing consumer would: a loop of
 * `read({ afterSeq })` from the last event it saw, and a live subscription where the log has one
 * (`log.subscribe`, as the PostgreSQL log does). Each collects what it is handed, in order.
 */
import { type Log, type LogEvent, STATE_STREAM } from '@agentstate/core';

/** A log that can follow a stream live. */
interface Subscribable {
  subscribe(options: { afterSeq: number }): AsyncIterable<LogEvent> & { close(): Promise<void> };
}

/** Reads after the last event seen until stopped; `stop` resolves once a read after it found nothing more. */
export function poll(log: Log, afterSeq: number): { stop(): Promise<LogEvent[]> } {
  let running = true;
  const seen: LogEvent[] = [];
  const loop = (async () => {
    for (;;) {
      const stopped = !running;
      const batch = await log.read({ stream: STATE_STREAM, afterSeq: seen.at(-1)?.seq ?? afterSeq, limit: 25 });
      seen.push(...batch);
      if (stopped && batch.length === 0) return seen;
      // Give the event loop a turn: writers in other processes are heard through it.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return {
    stop: () => {
      running = false;
      return loop;
    },
  };
}

/**
 * A subscription after `afterSeq` when `log` has `subscribe`, else undefined; `stop(last)` resolves
 * what it delivered once it delivered the event at `last` (waiting for it).
 */
export function subscribed(log: Log, afterSeq: number): { stop(last: number): Promise<LogEvent[]> } | undefined {
  if (typeof (log as Partial<Subscribable>).subscribe !== 'function') return undefined;
  const subscription = (log as unknown as Subscribable).subscribe({ afterSeq });
  const seen: LogEvent[] = [];
  let until = Number.POSITIVE_INFINITY;
  const loop = (async () => {
    for await (const event of subscription) {
      seen.push(event);
      if (event.seq >= until) break;
    }
    return seen;
  })();
  return {
    stop: async (last) => {
      until = last;
      if ((seen.at(-1)?.seq ?? afterSeq) >= last) await subscription.close();
      return loop;
    },
  };
}
