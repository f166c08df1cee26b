/** A point of the log as the faces take it from a command line, a form or a tool call. */
import type { PointInput } from '@agentstate/core';

/** A seq (a number, or its digits as text, as forms send every value), else an ISO-8601 instant, checked by the provider. */
export function parsePoint(value: number | string): PointInput {
  if (typeof value === 'number') return { seq: value };
  return /^\d+$/.test(value) ? { seq: Number(value) } : { time: value };
}
