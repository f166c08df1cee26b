/**
 * The page's side of the JSON API: every call goes to the server that
 * served the page, with the token of the page's address when there is one.
 */
import type { MemoryItem, Session, Skill, Turn } from '@agentstate/core';

const token = new URLSearchParams(location.search).get('token');
const authHeaders: HeadersInit = token ? { authorization: `Bearer ${token}` } : {};

/** A failed API call, with the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function address(path: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, String(v));
  const text = query.toString();
  return `/api${path}${text ? `?${text}` : ''}`;
}

/** GETs sent before the page's code rendered the view that needs them, by address; each is taken once. */
const early = new Map<string, Promise<Response>>();

/**
 * Sends a GET now that a view will make when it renders, so the answer is
 * on its way while the rest of the page's code is fetched and run; the
 * view's `get` of the same address takes it instead of asking again.
 */
export function prefetch(path: string, params?: Record<string, string | number | undefined>): void {
  const url = address(path, params);
  early.set(url, fetch(url, { headers: authHeaders }));
}

async function call<T>(method: string, path: string, params?: Record<string, string | number | undefined>): Promise<T> {
  const url = address(path, params);
  const sent = method === 'GET' ? early.get(url) : undefined;
  early.delete(url);
  const res = await (sent ?? fetch(url, { method, headers: authHeaders }));
  const body = (await res.json()) as unknown;
  if (!res.ok) throw new ApiError(res.status, (body as { error?: string }).error ?? res.statusText);
  return body as T;
}

/** GETs an API path. */
export const get = <T>(path: string, params?: Record<string, string | number | undefined>): Promise<T> => call<T>('GET', path, params);
/** POSTs to an API path. */
export const post = <T>(path: string, params?: Record<string, string | number | undefined>): Promise<T> => call<T>('POST', path, params);
/** DELETEs an API path. */
export const del = <T>(path: string): Promise<T> => call<T>('DELETE', path);

/** The address of the live feed (an EventSource cannot send headers, so the token rides in the query). */
export const liveAddress = (): string => (token ? `/api/live?token=${encodeURIComponent(token)}` : '/api/live');

export interface Overview {
  backend: string;
  head: number;
  allowWrites: boolean;
  canVerify: boolean;
  eventTypes: string[];
}
export interface Namespace {
  scope: string[];
  label: string;
}
export interface SessionPage {
  items: Session[];
  nextCursor: string | null;
}
export interface SessionHit {
  session: Session;
  turn: Turn;
  score: number;
}
export type RecallHit = MemoryItem & { score: number };
export interface SkillPoint {
  seq: number;
  time: string;
  type: string;
  version: number;
  uses: number;
  wins: number;
}
export interface SkillDetail {
  skill: Skill;
  history: SkillPoint[];
}
export interface SkillVersion {
  seq: number;
  version: number;
  body: string;
  time: string;
}
export interface TimelineEvent {
  seq: number;
  type: string;
  time: string;
  payload: unknown;
  /** Where a received event was first appended: that store's replica id and its seq there; the store's own events carry none. */
  origin?: string;
  originSeq?: number;
  namespace: string | null;
  writer: string | null;
}
export interface EventPage {
  head: number;
  events: TimelineEvent[];
  nextBefore: number | null;
}
export interface RecordCounts {
  live: number;
  deleted: number;
}
export interface StateCounts {
  head: number;
  seq: number;
  /** The instant the state is read at. */
  time: string;
  sessions: RecordCounts;
  turns: number;
  skills: RecordCounts;
  memory: RecordCounts;
  checkpoints: number;
}
export interface Health {
  backend: string;
  head: number;
  sizes: { file: number | null; wal: number | null } | null;
  snapshots: Array<{ seq: number; bytes: number; sealed: string | null }>;
  /** This store's replica id. */
  replica: string;
  /** Each origin held, with the highest seq of it received (this store's own: its head). */
  origins: Array<{ origin: string; seq: number }>;
}
export interface EventTypeCounts {
  head: number;
  countsByType: Record<string, number>;
}
// The diff's shape is the server's own, imported as types only: nothing of the server reaches the page's bundle.
export type { DiffLine, DiffSummary, KindDiff } from '../../src/diff-summary';
/** One version of a record, as `provider.history` gives it. */
export interface RecordVersion {
  seq: number;
  time: string;
  type: string;
  kind: 'session' | 'turn' | 'skill' | 'memory';
  record: Record<string, unknown>;
  actor?: string;
  originInstanceId?: string;
  erasedBy?: number;
  /** A version that lost a merge to a later one written apart from it. */
  conflict?: true;
}
