/**
 * Scope helpers (docs/contract.md §2, scopes): the global scope, the legacy
 * rule that reads version 1 scope objects from old logs, keys, the parent
 * chain, descendants, and the one rendering and parsing every face uses.
 */
import { ValidationError } from '../errors.js';
import { compareTuples } from './order.js';
import type { Scope } from './records.js';
import type { ScopeFilter } from '../write/backend.js';

/** The global scope: the empty path. */
export const GLOBAL_SCOPE: Scope = Object.freeze([]) as unknown as Scope;

/** The three fixed levels of the version 1 scope object, outermost first. */
const LEGACY_SCOPE_LEVELS = ['instance', 'project', 'workspace'] as const;

/** The scope object of version 1 logs: each level `''` or absent when unset. */
export interface LegacyScope {
  instance?: string | undefined;
  project?: string | undefined;
  workspace?: string | undefined;
}

/** A scope as callers write it: a path of labels, checked by the store. */
export type ScopeInput = readonly string[];

/**
 * The legacy rule: each set level becomes the label `level:text`, outermost
 * first, unset levels left out, so `{ project: 'p', workspace: 'w' }` is
 * `['project:p', 'workspace:w']` and every old parent chain is kept.
 */
export function legacyScope(legacy: LegacyScope): Scope {
  return LEGACY_SCOPE_LEVELS.flatMap((level) => {
    const text = legacy[level];
    return text === undefined || text === '' ? [] : [`${level}:${text}`];
  });
}

/** A path as is (copied), nothing as the global scope. Does not validate. */
export function toScope(input: ScopeInput | undefined): Scope {
  return input === undefined ? [] : [...input];
}

/**
 * A string key for a scope that two equal scopes share and no other does:
 * the canonical JSON of its labels. Descendant keys share a prefix
 * ({@link descendantKeyRange}), which is what lets a store index them.
 */
export function scopeKey(scope: Scope): string {
  return JSON.stringify(scope);
}

/**
 * The half-open key range `[from, to)` that holds exactly the keys of the
 * strict descendants of `scope`: keys starting `["a","b",` (or `["` for the
 * global scope), up to the same text with its last character incremented.
 * The last character is ASCII, so the range is the same in code units and
 * in UTF-8 bytes.
 */
export function descendantKeyRange(scope: Scope): { from: string; to: string } {
  const from = scope.length === 0 ? '["' : `${scopeKey(scope).slice(0, -1)},`;
  const to = from.slice(0, -1) + String.fromCharCode(from.charCodeAt(from.length - 1) + 1);
  return { from, to };
}

/** True when both scopes are the same path. */
export function sameScope(a: Scope, b: Scope): boolean {
  return a.length === b.length && a.every((label, i) => label === b[i]);
}

/** True for the global scope. */
export function isGlobalScope(scope: Scope): boolean {
  return scope.length === 0;
}

/** True when `ancestor` is a prefix of `scope` (the scope itself included). */
export function scopeStartsWith(scope: Scope, ancestor: Scope): boolean {
  return ancestor.length <= scope.length && ancestor.every((label, i) => label === scope[i]);
}

/** True when `scope` is a strict descendant of `ancestor`: a longer path it prefixes. */
export function isDescendantScope(scope: Scope, ancestor: Scope): boolean {
  return scope.length > ancestor.length && scopeStartsWith(scope, ancestor);
}

/** The scope followed by its ancestors, most specific first: its prefixes, longest first, ending at `[]`. */
export function scopeChain(scope: Scope): Scope[] {
  const chain: Scope[] = [];
  for (let n = scope.length; n >= 0; n -= 1) chain.push(scope.slice(0, n));
  return chain;
}

/** Orders scopes label by label in code-point order; a prefix sorts before its descendants. */
export const compareScopes: (a: Scope, b: Scope) => number = compareTuples;

/** True when the slash form of a path would read back as another path. */
function slashFormAmbiguous(scope: Scope): boolean {
  return scope.some((label) => label.includes('/')) || scope[0]!.startsWith('[') || (scope.length === 1 && scope[0] === 'global');
}

/**
 * A scope as people read it, the one rendering every face uses (tables,
 * messages, errors, resources): `global` for `[]`, else its labels joined by
 * `/` (`project:web/workspace:api`), else, when that would be ambiguous (a
 * label holding `/`, a first label starting `[`, the lone label `global`),
 * the JSON array text.
 */
export function describeScope(scope: Scope): string {
  if (isGlobalScope(scope)) return 'global';
  return slashFormAmbiguous(scope) ? scopeKey(scope) : scope.join('/');
}

/**
 * Parses a scope as written on a command line: `/` is the global scope;
 * text starting with `[` is a JSON array of labels (`["a/b","c"]`); anything
 * else is labels separated by `/` (`a/b/c`). The result is not yet checked
 * against the label rules; `field` names the option in errors.
 */
export function parseScopeText(text: string, field = 'scope'): Scope {
  if (text === '/') return [];
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ValidationError(field, 'is not a JSON array of labels');
    }
    if (!Array.isArray(parsed) || !parsed.every((label) => typeof label === 'string')) throw new ValidationError(field, 'must be a JSON array of strings');
    return parsed as string[];
  }
  const labels = text.split('/');
  if (labels.some((label) => label === '')) throw new ValidationError(field, 'has an empty label (write `/` alone for the global scope)');
  return labels;
}

/*
 * How the `scope`, `includeParentScopes` and `includeDescendants` options of
 * a listing, search or recall become the {@link ScopeFilter} a backend
 * answers, decided once for every store; and its in-memory reading, one
 * predicate over a record's scope.
 */

/** The options that choose scopes, already validated. */
export interface ScopeSelection {
  scope?: Scope | undefined;
  includeParentScopes?: boolean | undefined;
  includeDescendants?: boolean | undefined;
}

/** No scope: every scope. A scope: itself, plus its parent chain and its descendants when asked. */
export function selectScopes(o: ScopeSelection): ScopeFilter {
  if (o.scope === undefined) return {};
  const scopes = o.includeParentScopes ? scopeChain(o.scope) : [o.scope];
  return o.includeDescendants ? { scopes, descendantsOf: o.scope } : { scopes };
}

/** True when no scope can match: no exact scopes and no descendants. */
export function matchesNoScope(filter: ScopeFilter): boolean {
  return filter.scopes?.length === 0 && filter.descendantsOf === undefined;
}

/** A predicate true for the scopes the filter spans. */
export function scopeFilter(filter: ScopeFilter): (scope: Scope) => boolean {
  const { scopes, descendantsOf } = filter;
  if (scopes === undefined) return () => true;
  const keys = new Set(scopes.map(scopeKey));
  if (descendantsOf === undefined) return (scope) => keys.has(scopeKey(scope));
  return (scope) => keys.has(scopeKey(scope)) || isDescendantScope(scope, descendantsOf);
}
