/** One-line summaries of `state` events for people. Payloads are read defensively: a damaged one still prints. */
import type { LogEvent } from '@agentstate/core';
import { EventTypes } from '@agentstate/core';
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

/** A turn in a few words: its text, else the kinds of its parts (a tool call has no text). */
function turnText(turn: Loose): string {
  const parts = Array.isArray(turn?.parts) ? (turn.parts as unknown[]) : [];
  // A stored turn leaves out the content its parts imply (payload version 3): no content and parts is no text.
  const content = turn?.content === undefined && parts.length > 0 ? '' : field(turn, 'content');
  if (content !== '' || parts.length === 0) return text(content);
  const kinds = parts.map((part) => {
    const p = part !== null && typeof part === 'object' ? (part as Record<string, unknown>) : undefined;
    const type = field(p, 'type');
    return type === 'tool-call' || type === 'tool-result' ? `${type} ${field(p, 'toolName')}` : type;
  });
  return `[${kinds.join(', ')}]`;
}

/** A checkpoint's or write's thread, with its namespace when it is a subgraph's. */
function thread(record: Loose): string {
  const ns = field(record, 'namespace');
  return `thread ${field(record, 'threadId')}${ns === '' ? '' : ` (${text(ns, 40)})`}`;
}

/** The seqs of a list of turns, `#3, #4`. */
function seqs(turns: unknown): string {
  const list = Array.isArray(turns) ? turns : [];
  return list.length === 0 ? 'none' : list.map((t) => `#${field(t as Loose, 'seq')}`).join(', ');
}

/**
 * What an event did to a session's transcript, without naming the session:
 * the turn appended (`#3 user: "text"`), or the seqs removed and added;
 * undefined for an event that does not change a transcript.
 */
export function transcriptChange(event: LogEvent): string | undefined {
  const p = event.payload;
  switch (event.type) {
    case EventTypes.TurnAppended: {
      const t = record(p, 'turn');
      return `#${field(t, 'seq')} ${field(t, 'role')}: ${turnText(t)}`;
    }
    case EventTypes.TurnsRemoved:
      return `removed ${seqs((p as Loose)?.turns)}`;
    case EventTypes.SuffixReplaced:
      return `removed ${seqs((p as Loose)?.removed)}, added ${seqs((p as Loose)?.added)}`;
    default:
      return undefined;
  }
}

/** What an event did, in a few words. */
export function summarizeEvent(event: LogEvent): string {
  const p = event.payload;
  switch (event.type) {
    case EventTypes.SessionCreated:
    case EventTypes.SessionDeleted:
    case EventTypes.SessionUpdated:
    case EventTypes.SessionCompacted: {
      const s = record(p, 'session');
      return `session ${field(s, 'id')} ${text(field(s, 'title'))}`;
    }
    case EventTypes.TurnAppended:
      return `session ${field(record(p, 'turn'), 'sessionId')} ${transcriptChange(event)}`;
    case EventTypes.TurnsRemoved:
    case EventTypes.SuffixReplaced:
      return `session ${field(record(p, 'session'), 'id')} ${transcriptChange(event)}`;
    case EventTypes.SkillUpserted:
    case EventTypes.SkillDeleted: {
      const s = record(p, 'skill');
      return `skill ${field(s, 'slug')} v${field(s, 'version')} (${field(s, 'wins')}/${field(s, 'uses')}) ${field(s, 'id')}`;
    }
    case EventTypes.SkillOutcomeRecorded: {
      const s = record(p, 'skill');
      const won = field(record(p, 'increment'), 'wins') === '1' ? 'win' : 'loss';
      return `skill ${field(s, 'slug')} outcome ${won} (${field(s, 'wins')}/${field(s, 'uses')}) ${field(s, 'id')}`;
    }
    case EventTypes.MemoryWritten:
    case EventTypes.MemoryDeleted:
    case EventTypes.MemoryUpdated: {
      const m = record(p, 'item');
      return `memory ${field(m, 'id')} ${field(m, 'kind') || '-'}: ${text(field(m, 'content'))}`;
    }
    case EventTypes.CheckpointSaved: {
      const c = record(p, 'checkpoint');
      const m = record(c, 'metadata');
      const step = m?.step === undefined ? '' : ` step ${field(m, 'step')}${m.source === undefined ? '' : ` ${field(m, 'source')}`}`;
      const parent = c?.parentCheckpointId === null ? '' : ` after ${field(c, 'parentCheckpointId')}`;
      return `${thread(c)} checkpoint ${field(c, 'checkpointId')}${step}${parent}`;
    }
    case EventTypes.CheckpointWritesSaved: {
      const writes = Array.isArray((p as Loose)?.writes) ? ((p as Loose)!.writes as unknown[]) : [];
      const w = writes[0] !== null && typeof writes[0] === 'object' ? (writes[0] as Record<string, unknown>) : undefined;
      const channels = [...new Set(writes.map((x) => field(x as Loose, 'channel')))].join(', ');
      return `${thread(w)} checkpoint ${field(w, 'checkpointId')} task ${field(w, 'taskId')} wrote ${channels || 'nothing'}`;
    }
    case EventTypes.CheckpointThreadDeleted:
      return `thread ${field(p as Loose, 'threadId')} deleted`;
    default:
      return truncate(oneLine(JSON.stringify(p) ?? ''), 80);
  }
}

/** The width of the type column: the longest type of the `state` stream. */
const TYPE_WIDTH = Math.max(...Object.values(EventTypes).map((type) => type.length));

/** An event on one line: seq, time, type and summary, in fixed-width columns. */
export function eventLine(event: LogEvent): string {
  // A received event names where it was first appended (docs/contract.md §12); the store's own name none.
  const origin = event.origin === undefined ? '' : `  (from ${event.origin} #${event.originSeq})`;
  return `${String(event.seq).padStart(7)}  ${shortTime(event.time)}  ${event.type.padEnd(TYPE_WIDTH)}  ${summarizeEvent(event)}${origin}`;
}
