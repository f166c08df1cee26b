/**
 * Sessions created by the first MCP server, before sessions had a scope:
 * it wrote the scope into their ids, `<i>.<p>.<w>~<uuidv7>`, each legacy
 * level a 48-bit hash of its text (`_` when unset). Such a session reads as
 * global (the version 1 rule), so the server recognises it by its id and
 * keeps it readable by a server bound to the scope it encodes. New sessions
 * carry their scope in the record and get a plain UUIDv7 id.
 *
 * A hashed scope is written as a path by the legacy rule
 * (`['project:<hash>']`), so the parent and subscope relations of the old
 * level triples carry over unchanged.
 */
import { createHash } from 'node:crypto';
import type { LegacyScope, Scope, Session } from '@agentstate/core';
import { LEGACY_SCOPE_LEVELS, isGlobalScope, legacyScope } from '@agentstate/core';

const LEVEL_HEX = 12;
const TAGGED = /^([0-9a-f]{12}|_)\.([0-9a-f]{12}|_)\.([0-9a-f]{12}|_)~(.+)$/;

function levelHash(level: string): string {
  return createHash('sha256').update(level, 'utf8').digest('hex').slice(0, LEVEL_HEX);
}

/**
 * The legacy object a path is the image of under the legacy rule (labels
 * `instance:`, `project:`, `workspace:` in that order, each at most once),
 * or undefined for a path no old server could have been bound to.
 */
export function legacyLevels(scope: Scope): LegacyScope | undefined {
  const levels: LegacyScope = {};
  let next = 0;
  for (const label of scope) {
    const at = LEGACY_SCOPE_LEVELS.findIndex((level, i) => i >= next && label.startsWith(`${level}:`) && label.length > level.length + 1);
    if (at < 0) return undefined;
    const level = LEGACY_SCOPE_LEVELS[at]!;
    levels[level] = label.slice(level.length + 1);
    next = at + 1;
  }
  return levels;
}

/** A path's hashed form, as the old ids encode it; undefined when the path has no legacy form. */
export function hashScope(scope: Scope): Scope | undefined {
  const levels = legacyLevels(scope);
  if (levels === undefined) return undefined;
  const hashed: LegacyScope = {};
  for (const level of LEGACY_SCOPE_LEVELS) {
    const text = levels[level];
    if (text !== undefined) hashed[level] = levelHash(text);
  }
  return legacyScope(hashed);
}

/** The hashed scope an old server encoded in a session's id, or undefined for a session that carries its own scope. */
export function legacySessionScope(session: Session): Scope | undefined {
  if (!isGlobalScope(session.scope)) return undefined;
  const m = TAGGED.exec(session.id);
  if (!m) return undefined;
  const level = (s: string): string => (s === '_' ? '' : s);
  return legacyScope({ instance: level(m[1]!), project: level(m[2]!), workspace: level(m[3]!) });
}
