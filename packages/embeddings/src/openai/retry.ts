/**
 * When to try again: the server's `Retry-After` (or `retry-after-ms`) when it
 * gives one, else exponential backoff with jitter.
 */
import type { Entropy } from '@agentstate/core';

/**
 * The wait a response asks for, in ms: `retry-after-ms` (OpenAI), else
 * `Retry-After` as seconds or as an HTTP date. `undefined` when absent or
 * unreadable; never negative.
 */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** A uniform number in [0, 1) from an entropy source. */
export function uniform(entropy: Entropy): number {
  const bytes = new Uint8Array(4);
  entropy(bytes);
  return (((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0) / 2 ** 32;
}

/**
 * Backoff before retry number `retry` (1 for the first retry): base × 2^(retry-1),
 * capped at `maxMs`, then jittered to between half and all of that.
 */
export function backoffMs(retry: number, baseMs: number, maxMs: number, unit: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (retry - 1));
  return ceiling / 2 + (ceiling / 2) * unit;
}
