/**
 * Shared fixtures of the provider checks: a rich scripted history that touches every record kind,
 * tombstone and version rule, and a read of everything a provider shows through its public API.
 */
import type { EventSourcedProvider, Hlc, Provider, RecordVersion, Scope, ScopeInput, TurnInput, TurnRole } from '@agentstate/core';
import { compareHlc, encodeSnapshot, LIMITS, STATE_STREAM, toScope } from '@agentstate/core';
import { HLC_ZERO } from '@agentstate/core/backend';

/** A fixed start time for manual clocks: 2026-01-01T12:00:00.000Z. */
export const T0 = Date.UTC(2026, 0, 1, 12);
/** One hour in milliseconds. */
export const HOUR = 3_600_000;
/** One day in milliseconds. */
export const DAY = 24 * HOUR;
/** The global scope, as records carry it. */
export const GLOBAL: Scope = [];
/** The scopes {@link populate} writes to. */
export const POPULATED_SCOPES: readonly ScopeInput[] = [[], ['project:alpha'], ['instance:i1', 'project:alpha', 'workspace:w'], ['team', 'web']];

/** Ids of what {@link populate} wrote. */
export interface Populated {
  liveSessionIds: string[];
  deletedSessionId: string;
  deletedMemoryId: string;
  slugs: string[];
}

/**
 * Writes a history covering every event type: transcripts in all four roles, a deleted session that
 * keeps its turns, skills in three scopes with several content versions, outcomes, a deleted skill,
 * a resurrected skill, memory in several scopes with kinds, sources and diacritics, and a deleted
 * item. `tick` runs between writes (for example to advance a manual clock).
 */
export async function populate(p: Provider, tick: () => void = () => undefined): Promise<Populated> {
  const step = async <T>(write: Promise<T>): Promise<T> => {
    const value = await write;
    tick();
    return value;
  };
  const planning = await step(p.sessions.create({ title: 'planning', model: 'model-a' }));
  await step(p.sessions.appendTurn({ sessionId: planning.id, role: 'system', content: 'You plan releases.' }));
  await step(p.sessions.appendTurn({ sessionId: planning.id, role: 'user', content: 'plan the release' }));
  await step(p.sessions.appendTurn({ sessionId: planning.id, role: 'assistant', content: 'Running the checks first.' }));
  await step(p.sessions.appendTurn({ sessionId: planning.id, role: 'tool', content: '{"ok":true,"tests":42}' }));
  const scratch = await step(p.sessions.create({ title: 'scratch' }));
  await step(p.sessions.appendTurn({ sessionId: scratch.id, role: 'user', content: 'temporary' }));
  await step(p.sessions.appendTurn({ sessionId: scratch.id, role: 'assistant', content: 'noted' }));
  await step(p.sessions.delete(scratch.id));
  const empty = await step(p.sessions.create({ model: 'model-b', scope: ['team', 'web'] }));

  await step(p.skills.upsert({ slug: 'deploy', name: 'Deploy', body: 'ship it', tags: ['ops', 'release'], check: 'npm test' }));
  await step(p.skills.upsert({ slug: 'deploy', body: 'ship it faster' }));
  await step(p.skills.recordOutcome('deploy', { success: true }));
  await step(p.skills.recordOutcome('deploy', { success: false }));
  await step(p.skills.upsert({ slug: 'deploy', name: 'Deploy (alpha)', body: 'ship alpha', scope: ['project:alpha'] }));
  await step(p.skills.upsert({ slug: 'lint', name: 'Lint', body: 'run the linter', scope: ['instance:i1', 'project:alpha', 'workspace:w'] }));
  await step(p.skills.upsert({ slug: 'rollback', name: 'Rollback', body: 'revert the release' }));
  await step(p.skills.delete('rollback'));
  await step(p.skills.upsert({ slug: 'phoenix', name: 'Phoenix', body: 'first life', tags: ['myth'] }));
  await step(p.skills.delete('phoenix'));
  await step(p.skills.upsert({ slug: 'phoenix', body: 'second life' }));

  await step(p.memory.write({ kind: 'fact', content: 'the user prefers Go', source: 'chat' }));
  await step(p.memory.write({ kind: 'preference', content: 'Café au lait, no sugar', scope: ['project:alpha'] }));
  const doomed = await step(p.memory.write({ content: 'a passing thought' }));
  await step(p.memory.delete(doomed.id));
  await step(p.memory.write({ kind: 'fact', content: 'Jürgen owns the deploys', scope: ['instance:i1', 'project:alpha', 'workspace:w'] }));

  return {
    liveSessionIds: [planning.id, empty.id],
    deletedSessionId: scratch.id,
    deletedMemoryId: doomed.id,
    slugs: ['deploy', 'lint', 'rollback', 'phoenix'],
  };
}

/** Everything a provider shows through its public read API. */
export async function readModel(p: Provider, scopes: readonly ScopeInput[] = POPULATED_SCOPES): Promise<unknown> {
  const sessions = await p.sessions.list();
  const transcripts = [];
  for (const s of sessions) transcripts.push({ session: await p.sessions.get(s.id), turns: await p.sessions.turns(s.id) });
  const skillsByScope = [];
  for (const scope of scopes) skillsByScope.push({ scope: toScope(scope), skills: await p.skills.list({ scope }) });
  const search = await p.skills.search('', 0);
  const skillsBySlug = [];
  for (const skill of search) skillsBySlug.push(await p.skills.get(skill.slug, { scope: skill.scope }));
  const memory = await p.memory.recall({ limit: LIMITS.pageSize });
  const items = [];
  for (const hit of memory) items.push(await p.memory.get(hit.id));
  const namespaces = await p.namespaces();
  return { sessions, transcripts, skillsByScope, search, skillsBySlug, memory, items, namespaces };
}

/** True when `provider` exposes the event-sourcing surface. */
export function isEventSourced(provider: Provider): provider is EventSourcedProvider {
  const p = provider as Partial<EventSourcedProvider>;
  return 'log' in provider && typeof p.snapshot === 'function' && typeof p.saveSnapshot === 'function';
}

/** The head of the state stream, or undefined for a provider without a log. */
export async function stateHead(p: Provider): Promise<number | undefined> {
  return isEventSourced(p) ? p.log.head(STATE_STREAM) : undefined;
}

/** What moves on every write: the state stream's head, or, without a log, the session, its turns and the memory a read shows. */
export async function footprint(p: Provider, sessionId: string): Promise<unknown> {
  if (isEventSourced(p)) return p.log.head(STATE_STREAM);
  return { session: await p.sessions.getAny(sessionId), turns: await p.sessions.turns(sessionId), memory: await p.memory.recall({ limit: 1000 }) };
}

/** The deterministic snapshot text of an event-sourced provider. */
export async function snapshotText(p: EventSourcedProvider): Promise<string> {
  return encodeSnapshot(await p.snapshot());
}

/** True for a timestamp later than the zero timestamp. */
export function isNonZeroHlc(hlc: Hlc): boolean {
  return compareHlc(hlc, HLC_ZERO) > 0;
}

/** The ids of `records`, in their order. */
export const ids = (records: readonly { id: string }[]): string[] => records.map((r) => r.id);

/** A canonical instant: fixed-width ISO-8601 UTC with milliseconds. */
export const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A turn input: `content` said by `role`. */
export const says = (content: string, role: TurnRole = 'user'): TurnInput => ({ role, content });

/** The live turns of a session, each as `<seq> <content>`, in their order: what stores must read alike. */
export async function turnLines(p: Provider, sessionId: string): Promise<string[]> {
  return (await p.sessions.turns(sessionId)).map((turn) => `${turn.seq} ${turn.content}`);
}

/** Versions as history lists them, each its text (a session's title, a skill's body, else the content) and `(conflict)` after a loser, sorted. */
export function marked(versions: readonly RecordVersion[]): string[] {
  const text = (v: RecordVersion) => (v.kind === 'session' ? v.record.title : v.kind === 'skill' ? v.record.body : v.record.content);
  return versions.map((v) => `${text(v)}${v.conflict ? ' (conflict)' : ''}`).sort();
}
