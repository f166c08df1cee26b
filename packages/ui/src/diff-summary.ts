/**
 * The diff of two points (`provider.diff`) as the timeline shows it: per
 * record kind, how many records were created, changed and deleted, and the
 * first few of each with a one-line label, so a diff across a million
 * events stays a small answer.
 */
import type { RecordDiff, StateDiff } from '@agentstate/core';

/** One record of a diff, as a line of the page. */
export interface DiffLine {
  id: string;
  label: string;
}

/** One kind of record in a diff summary. */
export interface KindDiff {
  created: number;
  changed: number;
  deleted: number;
  /** The first records of each list, in id order. */
  sample: { created: DiffLine[]; changed: DiffLine[]; deleted: DiffLine[] };
}

/** The answer of `GET /api/diff`. */
export interface DiffSummary {
  from: { seq: number; time: string };
  to: { seq: number; time: string };
  sessions: KindDiff;
  turns: KindDiff;
  skills: KindDiff;
  memory: KindDiff;
  checkpoints: KindDiff;
}

/** How many records of each list a summary names. */
export const DIFF_SAMPLE = 20;

const clip = (text: string, n = 100): string => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** A one-line label of any record a diff holds. */
function labelOf(record: Record<string, unknown>): string {
  if (typeof record.slug === 'string') return `${record.slug} v${String(record.version)}`;
  if (typeof record.role === 'string') return `${record.role}: ${clip(String(record.content ?? ''))}`;
  if (typeof record.title === 'string') return record.title || '(untitled)';
  if (typeof record.content === 'string') return clip(record.content);
  if (typeof record.threadId === 'string') return `thread ${record.threadId}`;
  return String(record.id);
}

function line(record: { id: string }): DiffLine {
  return { id: record.id, label: labelOf(record as unknown as Record<string, unknown>) };
}

function kind<T extends { id: string }>(diff: RecordDiff<T>, limit: number): KindDiff {
  return {
    created: diff.created.length,
    changed: diff.changed.length,
    deleted: diff.deleted.length,
    sample: {
      created: diff.created.slice(0, limit).map(line),
      changed: diff.changed.slice(0, limit).map((c) => line(c.after)),
      deleted: diff.deleted.slice(0, limit).map(line),
    },
  };
}

/** Summarises `diff`, naming at most `limit` records of each list. */
export function summarizeDiff(diff: StateDiff, limit = DIFF_SAMPLE): DiffSummary {
  return {
    from: { seq: diff.from.seq, time: diff.from.time },
    to: { seq: diff.to.seq, time: diff.to.time },
    sessions: kind(diff.sessions, limit),
    turns: kind(diff.turns, limit),
    skills: kind(diff.skills, limit),
    memory: kind(diff.memory, limit),
    checkpoints: kind(diff.checkpoints, limit),
  };
}
