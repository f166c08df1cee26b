/** What every tool handler needs, and the one way a handler answers. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { IdGenerator, Provider } from '@agentstate/core';
import { NotFoundError } from '@agentstate/core';
import { toolError } from '../errors.js';
import type { ScopePolicy } from '../scope-policy.js';

/** The shared state of one server's tools. */
export interface ToolContext {
  readonly provider: Provider;
  /** Scope rules for sessions, skills and memory. */
  readonly policy: ScopePolicy;
  /**
   * The same rules over hashed legacy scopes, for sessions of the old server
   * whose ids encode their scope; undefined when the bound path has no legacy form.
   */
  readonly legacySessionPolicy: ScopePolicy | undefined;
  /** Makes the ids of new sessions. */
  readonly ids: IdGenerator;
  /** Provenance of memory written without a `source`: the MCP client's name when it gave one. */
  defaultSource(): string;
}

/**
 * Runs a handler and answers with its result as structured content (and as
 * JSON text, for clients that only read text), or with an error result.
 */
export function answer<A>(fn: (args: A) => Promise<Record<string, unknown>>): (args: A) => Promise<CallToolResult> {
  return async (args: A) => {
    try {
      const value = await fn(args);
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    } catch (error) {
      return toolError(error);
    }
  };
}

/** Hints shared by every tool: each acts only on the agentstate database. */
export const CLOSED_WORLD = { openWorldHint: false } as const;

/**
 * What a delete tool answers for a record that is already a tombstone: the
 * tombstone, so a repeated delete succeeds as the tools' `idempotentHint`
 * promises. With an `operationId`, `retry` replays that operation first: its
 * recorded answer wins and a reused id with other arguments stays a
 * conflict; an id no operation recorded finds no live record and answers the
 * tombstone too.
 */
export async function repeatedDelete<T>(tombstone: T, operationId: string | undefined, retry: (operationId: string) => Promise<T>): Promise<T> {
  if (operationId === undefined) return tombstone;
  return retry(operationId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return tombstone;
    throw error;
  });
}
