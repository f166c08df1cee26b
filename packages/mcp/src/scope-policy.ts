/**
 * The scope a server is bound to, and what its tool calls may reach. The
 * bound scope is a path fixed at start. A call names a scope relative to it
 * (`["api"]` under a server bound to `["web"]` is `["web","api"]`) and may
 * target a narrower scope only when the operator allows subscopes, and read the bound scope's parents (global skills, say) only
 * when the operator allows parent reads. Nothing else is reachable: a call
 * naming another scope is refused, never silently widened.
 */
import type { Scope, ScopeInput } from '@agentstate/core';
import { AgentStateError, describeScope, NotFoundError, sameScope, scopeChain, scopeInputSchema, scopeStartsWith, toScope, parseInput } from '@agentstate/core';
import { z } from 'zod';

/** A target scope, checked under the name of the tool argument it came from. */
const targetSchema = z.object({ scope: scopeInputSchema });

/** How a server is bound. */
export interface ScopePolicyOptions {
  /** The scope the server serves, a path; nothing given: the global scope. */
  scope?: ScopeInput;
  /** Let calls target scopes under the bound one (e.g. a workspace under the bound project). */
  allowSubscopes?: boolean;
  /** Let reads (recall, skill search and get) include the bound scope's parents, up to global. */
  readParents?: boolean;
}

/** A call tried to reach a scope the server's operator did not allow. */
export class ScopeDeniedError extends AgentStateError {
  readonly code = 'scope_denied' as const;
}

/** The scope rules of one server. Immutable. */
export class ScopePolicy {
  readonly bound: Scope;
  readonly allowSubscopes: boolean;
  readonly readParents: boolean;

  constructor(options: ScopePolicyOptions = {}) {
    this.bound = Object.freeze(parseInput(scopeInputSchema, toScope(options.scope))) as Scope;
    this.allowSubscopes = options.allowSubscopes ?? false;
    this.readParents = options.readParents ?? false;
  }

  /**
   * The scope a call targets: the bound scope followed by the call's
   * relative path, so `["api"]` on a server bound to `["web"]` is
   * `["web","api"]`. No path (or `[]`) is the bound scope; a longer one is
   * refused unless the operator allows subscopes. A call can never leave
   * the bound scope: there is no way to name a parent.
   */
  target(relative: readonly string[] | undefined): Scope {
    if (relative === undefined || relative.length === 0) return this.bound;
    const { scope } = parseInput(targetSchema, { scope: [...this.bound, ...relative] });
    if (this.allowSubscopes) return scope;
    throw new ScopeDeniedError(
      `scope: ${describeScope(scope)} is under this server's scope (${describeScope(this.bound)}), but the operator did not allow subscopes`,
    );
  }

  /**
   * Whether a read includes the target's parent scopes: the call's choice,
   * defaulting to the operator's. Asking for parents the operator did not
   * allow is refused.
   */
  includeParents(requested: boolean | undefined): boolean {
    if (requested === true && !this.readParents) {
      throw new ScopeDeniedError('includeParentScopes: this server does not read parent scopes (the operator did not allow it)');
    }
    return requested ?? this.readParents;
  }

  /** The scopes a read at `target` covers, most specific first. */
  readScopes(target: Scope, includeParents: boolean): Scope[] {
    return includeParents ? scopeChain(target) : [target];
  }

  /** True when records of `scope` may be written through this server. */
  canWrite(scope: Scope): boolean {
    return sameScope(scope, this.bound) || (this.allowSubscopes && scopeStartsWith(scope, this.bound));
  }

  /** True when records of `scope` may be read through this server. */
  canRead(scope: Scope): boolean {
    return this.canWrite(scope) || (this.readParents && scopeStartsWith(this.bound, scope));
  }

  /** Throws unless records of `scope` may be read: as not found, so nothing else leaks. */
  assertReadable(entity: string, key: string, scope: Scope): void {
    if (!this.canRead(scope)) throw new NotFoundError(entity, key);
  }

  /**
   * Throws unless records of `scope` may be changed: not found when they
   * cannot even be read, refused when they belong to a parent scope.
   */
  assertWritable(entity: string, key: string, scope: Scope): void {
    this.assertReadable(entity, key, scope);
    if (!this.canWrite(scope)) {
      throw new ScopeDeniedError(`${entity} ${key} belongs to a parent of this server's scope, which it may read but not change`);
    }
  }
}
