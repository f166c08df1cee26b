/** What every tool handler needs, and the one way a handler answers. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnySchema, ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EventSourcedProvider, IdGenerator, Provider, Scope } from '@agentstate/core';
import { NotFoundError, UnavailableError } from '@agentstate/core';
import { toolError } from '../errors.js';
import { fullArg } from '../schemas.js';
import type { ScopePolicy } from '../scope-policy.js';
import { type View, viewFor } from '../views.js';

/** The shared state of one server's tools. */
export interface ToolContext {
  readonly provider: Provider;
  /** Scope rules for sessions, skills and memory. */
  readonly policy: ScopePolicy;
  /** Makes the ids of new sessions. */
  readonly ids: IdGenerator;
  /** Provenance of memory written without a `source`: the MCP client's name when it gave one. */
  defaultSource(): string;
}

/** The provider as one that keeps an event log, or an error saying that it keeps none, so has no `what`. */
export function eventSourced(provider: Provider, what: string): EventSourcedProvider {
  if (!('log' in provider) || !('history' in provider)) throw new UnavailableError(`this provider keeps no event log, so it has no ${what}`);
  return provider as EventSourcedProvider;
}

/** What a tool does to the records it names, as the MCP hints tell clients. */
const EFFECTS = {
  read: { readOnlyHint: true, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  /** Removes or replaces what was there; repeating it removes more. */
  remove: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  /** Removes what was there; repeating it changes nothing more. */
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
} as const;

/** A tool: what clients are told of it, and its handler. */
export interface ToolSpec<I extends ZodRawShapeCompat, O extends ZodRawShapeCompat> {
  title: string;
  description: string;
  effect: keyof typeof EFFECTS;
  input: I;
  output: O;
  /** False for a tool that answers no records; the others take `full` and run with its {@link View}. */
  records?: false;
  run(args: ShapeOutput<I>, view: View, ctx: ToolContext): Promise<Record<string, unknown>>;
}

/** A tool's spec as it is, its handler's arguments typed by its input. */
export const defineTool = <I extends ZodRawShapeCompat, O extends ZodRawShapeCompat>(spec: ToolSpec<I, O>): ToolSpec<I, O> => spec;

/**
 * Registers `tools` on `server`, by name. Each answers with its handler's result as
 * structured content (and as JSON text, for clients that only read text), or
 * with an error result; every tool acts only on the agentstate database.
 * A tool that answers records takes `full` (lean records unless true).
 */
export function registerTools(server: McpServer, ctx: ToolContext, tools: Record<string, ToolSpec<ZodRawShapeCompat, ZodRawShapeCompat>>): void {
  for (const [name, spec] of Object.entries(tools)) {
    const annotations = { ...EFFECTS[spec.effect], openWorldHint: false };
    // The SDK checked the arguments against `spec.input` before the handler sees them; strict, so an
    // unknown argument is refused rather than dropped (docs/contract.md §3), as the provider's options are.
    const input: AnySchema = z.strictObject(spec.records === false ? spec.input : { ...spec.input, full: fullArg });
    const config = { title: spec.title, description: spec.description, inputSchema: input, outputSchema: spec.output, annotations };
    server.registerTool(name, config, async (parsed): Promise<CallToolResult> => {
      const { full, ...args } = parsed as Record<string, unknown>;
      try {
        // `full` is the face's own: it never reaches a provider call.
        const value = await spec.run(args as ShapeOutput<ZodRawShapeCompat>, viewFor(full as boolean | undefined), ctx);
        return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
      } catch (error) {
        return toolError(error);
      }
    });
  }
}

/**
 * What a delete tool answers for the `entity` `id` of `store`, under the
 * scope rules: a live record (an expired one included) is deleted; a
 * tombstone is the answer, so a repeated delete succeeds as the tools'
 * `idempotentHint` promises; one that never existed is not found. With an
 * `operationId`, a tombstone's delete replays that operation first: its
 * recorded answer wins and a reused id with other arguments stays a
 * conflict; an id no operation recorded finds no live record and answers the
 * tombstone too.
 */
export async function deleteOnce<T extends { id: string; scope: Scope; deleted: boolean }>(
  ctx: ToolContext,
  entity: string,
  store: { getAny(id: string): Promise<T>; delete(id: string, options: { operationId?: string }): Promise<T> },
  id: string,
  operationId: string | undefined,
): Promise<T> {
  const found = await store.getAny(id);
  ctx.policy.assertWritable(entity, id, found.scope);
  if (!found.deleted) return store.delete(found.id, { operationId });
  if (operationId === undefined) return found;
  return store.delete(found.id, { operationId }).catch((error: unknown) => {
    if (error instanceof NotFoundError) return found;
    throw error;
  });
}
