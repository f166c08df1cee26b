/** Scope helpers: the global scope, normalisation, keys and the parent chain. */
import type { Scope } from './records.js';

/** The all-empty scope. */
export const GLOBAL_SCOPE: Scope = Object.freeze({ instance: '', project: '', workspace: '' });

/** A partial scope as callers write it; missing levels are `''`. */
export type ScopeInput = Partial<Scope>;

/** Fills missing levels with `''`. */
export function toScope(input: ScopeInput | undefined): Scope {
  return { instance: input?.instance ?? '', project: input?.project ?? '', workspace: input?.workspace ?? '' };
}

/** A string key for a scope that two equal scopes share and no other does. */
export function scopeKey(scope: Scope): string {
  return JSON.stringify([scope.instance, scope.project, scope.workspace]);
}

/** True when both scopes are equal level by level. */
export function sameScope(a: Scope, b: Scope): boolean {
  return a.instance === b.instance && a.project === b.project && a.workspace === b.workspace;
}

/** True for the global scope. */
export function isGlobalScope(scope: Scope): boolean {
  return scope.instance === '' && scope.project === '' && scope.workspace === '';
}

/**
 * The scope followed by its ancestors, most specific first:
 * `{i,p,w} → {i,p,''} → {i,'',''} → {'','',''}`, without repeats.
 */
export function scopeChain(scope: Scope): Scope[] {
  const chain: Scope[] = [scope];
  const push = (s: Scope): void => {
    if (!sameScope(chain[chain.length - 1]!, s)) chain.push(s);
  };
  push({ instance: scope.instance, project: scope.project, workspace: '' });
  push({ instance: scope.instance, project: '', workspace: '' });
  push(GLOBAL_SCOPE);
  return chain;
}

/**
 * A scope as people read it, the one rendering every face uses (tables,
 * messages, errors, resources): `global`, else its set levels, outermost
 * first, each as `level=` and its JSON-quoted text, e.g.
 * `project="web" workspace="api"`. Quoting keeps it unambiguous whatever
 * the names hold (spaces, `/`, quotes), and an unset level is left out
 * rather than shown empty.
 */
export function describeScope(scope: Scope): string {
  if (isGlobalScope(scope)) return 'global';
  return (['instance', 'project', 'workspace'] as const)
    .filter((level) => scope[level] !== '')
    .map((level) => `${level}=${JSON.stringify(scope[level])}`)
    .join(' ');
}
