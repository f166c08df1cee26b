/**
 * Sessions carry no scope in agentstate's records, so the server writes the
 * scope into the ids of the sessions it creates: `<i>.<p>.<w>~<uuidv7>`,
 * each level a 48-bit hash of its text (`_` when unset). Ids without a tag,
 * such as those of sessions created through the library, belong to the
 * global scope. Hashing level by level keeps "is this scope under that one"
 * decidable from the id alone, and keeps ids short whatever the scope names.
 */
import { createHash } from 'node:crypto';
import type { Scope } from '@agentstate/core';
import { GLOBAL_SCOPE, isGlobalScope } from '@agentstate/core';

const EMPTY = '_';
const LEVEL_HEX = 12;
const TAGGED = /^([0-9a-f]{12}|_)\.([0-9a-f]{12}|_)\.([0-9a-f]{12}|_)~(.+)$/;

function levelHash(level: string): string {
  return level === '' ? '' : createHash('sha256').update(level, 'utf8').digest('hex').slice(0, LEVEL_HEX);
}

/**
 * A scope with every set level replaced by its hash, unset levels kept
 * `''`: the form in which scopes are compared with session ids.
 */
export function hashScope(scope: Scope): Scope {
  return { instance: levelHash(scope.instance), project: levelHash(scope.project), workspace: levelHash(scope.workspace) };
}

/** The id of a new session in `scope`, around a fresh UUIDv7. */
export function scopedSessionId(scope: Scope, uuid: string): string {
  if (isGlobalScope(scope)) return uuid;
  const h = hashScope(scope);
  return `${h.instance || EMPTY}.${h.project || EMPTY}.${h.workspace || EMPTY}~${uuid}`;
}

/** The hashed scope (see {@link hashScope}) a session id belongs to. */
export function sessionScopeHash(id: string): Scope {
  const m = TAGGED.exec(id);
  if (!m) return GLOBAL_SCOPE;
  const level = (s: string): string => (s === EMPTY ? '' : s);
  return { instance: level(m[1]!), project: level(m[2]!), workspace: level(m[3]!) };
}
