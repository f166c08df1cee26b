/**
 * What the timeline filters events by, read defensively from payloads: the
 * namespace (scope) of the record an event touches, and the instance that
 * wrote it.
 */
import type { LogEvent } from '@agentstate/core';
import { describeScope } from '@agentstate/core';

type Loose = Record<string, unknown>;

function recordOf(event: LogEvent): Loose | undefined {
  const payload = event.payload as Loose | null;
  if (payload === null || typeof payload !== 'object') return undefined;
  for (const key of ['session', 'skill', 'item', 'checkpoint'] as const) {
    const value = payload[key];
    if (value !== null && typeof value === 'object') return value as Loose;
  }
  return undefined;
}

/** The namespace of the record the event touches, as people read it (`global`, `team/web`); undefined for checkpoint thread events. */
export function namespaceOf(event: LogEvent): string | undefined {
  const scope = recordOf(event)?.scope;
  return Array.isArray(scope) && scope.every((label) => typeof label === 'string') ? describeScope(scope as string[]) : undefined;
}

/** The instance that wrote the event: its origin, else the record's last writer. */
export function writerOf(event: LogEvent): string | undefined {
  if (event.originInstanceId) return event.originInstanceId;
  const writer = recordOf(event)?.lastWriterId;
  return typeof writer === 'string' ? writer : undefined;
}

/** Filters of the timeline; each absent one keeps every event. */
export interface EventFilter {
  types?: ReadonlySet<string>;
  /** The namespace, or a prefix of it ending at a label (`team` keeps `team/web`). */
  namespace?: string;
  writer?: string;
}

/** Whether `event` passes `filter`. */
export function matchesFilter(event: LogEvent, filter: EventFilter): boolean {
  if (filter.types && filter.types.size > 0 && !filter.types.has(event.type)) return false;
  if (filter.namespace) {
    const ns = namespaceOf(event);
    if (ns === undefined || (ns !== filter.namespace && !ns.startsWith(`${filter.namespace}/`))) return false;
  }
  if (filter.writer && writerOf(event) !== filter.writer) return false;
  return true;
}
