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

/** A routine whose steps may answer at once or later: each `yield` hands one answer to {@link drive}. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** Runs `steps`, at once while each answer is a plain value, after it settles when one is a promise. */
export function drive<T>(steps: Steps<T>, answer?: unknown): Awaitable<T> {
  for (;;) {
    const next = steps.next(answer);
    if (next.done) return next.value;
    if (isPromiseLike(next.value)) return Promise.resolve(next.value).then((value) => drive(steps, value));
    answer = next.value;
  }
}

/** The value of `answer`, once it settles: `yield*` it in {@link Steps}. */
export function* wait<T>(answer: Awaitable<T>): Steps<T> {
  return (yield answer) as T;
}
