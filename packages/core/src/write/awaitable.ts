/**
 * Helpers for {@link Awaitable} values: a synchronous backend (the in-memory
 * one) answers look-ups and commits with plain values, and the write path
 * uses them without a microtask turn or a promise for each, which on that
 * backend would be most of a write's cost.
 */
import type { Awaitable } from './backend.js';

/** True for a promise or any other thenable. */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `fn(value)`: at once when `value` is a plain value, after it settles when it is a promise. */
export function andThen<T, U>(value: Awaitable<T>, fn: (value: T) => Awaitable<U>): Awaitable<U> {
  return isPromiseLike(value) ? value.then(fn) : fn(value);
}
