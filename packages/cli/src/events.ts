/** One-line summaries of `state` events for people. Payloads are read defensively: a damaged one still prints. */
import type { LogEvent } from '@agentstate/core';
import { oneLine, shortTime, truncate } from './output.js';

type Loose = Record<string, unknown> | undefined;

function field(record: Loose, key: string): string {
  const value = record?.[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
}

function record(payload: unknown, key: string): Loose {
  const value = (payload as Loose)?.[key];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

function text(value: string, max = 60): string {
  return JSON.stringify(truncate(oneLine(value), max));
}

/** What an event did, in a few words. */
export function summarizeEvent(event: LogEvent): string {
  const p = event.payload;
  switch (event.type) {
    case 'session.created':
    case 'session.deleted': {
      const s = record(p, 'session');
      return `session ${field(s, 'id')} ${text(field(s, 'title'))}`;
    }
    case 'session.turn_appended': {
      const t = record(p, 'turn');
      return `session ${field(t, 'sessionId')} #${field(t, 'seq')} ${field(t, 'role')}: ${text(field(t, 'content'))}`;
    }
    case 'skill.upserted':
    case 'skill.deleted': {
      const s = record(p, 'skill');
      return `skill ${field(s, 'slug')} v${field(s, 'version')} (${field(s, 'wins')}/${field(s, 'uses')}) ${field(s, 'id')}`;
    }
    case 'memory.written':
    case 'memory.deleted': {
      const m = record(p, 'item');
      return `memory ${field(m, 'id')} ${field(m, 'kind') || '-'}: ${text(field(m, 'content'))}`;
    }
    default:
      return truncate(oneLine(JSON.stringify(p) ?? ''), 80);
  }
}

/** An event on one line: seq, time, type and summary, in fixed-width columns. */
export function eventLine(event: LogEvent): string {
  return `${String(event.seq).padStart(7)}  ${shortTime(event.time)}  ${event.type.padEnd(21)}  ${summarizeEvent(event)}`;
}
