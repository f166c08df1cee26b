/**
 * The sync routes of the HTTP transport (docs/contract.md §12): `POST /sync/vector`,
 * `/sync/changes`, `/sync/receive` and `/sync/retention` over the served provider, behind the transport's guard.
 * They send and receive the whole store, which sync cannot narrow to a scope yet: only a server
 * that reaches every scope (bound to the global scope, subscopes allowed) answers them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventSourcedProvider, PolicyChange, Provider, SyncEvent, Vector } from '@agentstate/core';
import { SYNC_MAX_BODY, SYNC_ROUTES, type SyncRoute, syncErrorAnswer, UnavailableError, ValidationError } from '@agentstate/core';
import { ScopeDeniedError, ScopePolicy, type ScopePolicyOptions } from '../scope-policy.js';

/** Answers with `body` as JSON, and `headers` besides. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The body of `req` as JSON, or undefined once a 413 answered a body over {@link SYNC_MAX_BODY}. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const tooLarge = () => {
    sendJson(res, 413, { error: { code: 'invalid', message: `the request body is over ${SYNC_MAX_BODY} bytes` } }, { connection: 'close' });
    return undefined;
  };
  if (Number(req.headers['content-length'] ?? 0) > SYNC_MAX_BODY) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > SYNC_MAX_BODY) return tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ValidationError('', 'the request body is not JSON');
  }
}

/** What `route` answers with `body`, from `provider`. */
async function call(provider: EventSourcedProvider, route: SyncRoute, body: unknown): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('', 'the request body must be a JSON object');
  // Unchecked here: the provider checks the vector, the limit and every event or change before it reads or writes.
  const input = body as { vector: Vector; limit?: number; events: SyncEvent[]; changes: PolicyChange[] };
  if (route === 'vector') return { vector: await provider.vector() };
  if (route === 'changes') return { events: await provider.changes(input.vector, input.limit === undefined ? {} : { limit: input.limit }) };
  if (route === 'retention') return provider.retention.merge(input.changes);
  return provider.receive(input.events);
}

/**
 * Answers `POST <SYNC_PATH>/<route>` with JSON: the route's result, or the typed error as
 * {@link syncErrorAnswer} maps it. `route` is what follows the sync path.
 */
export async function answerSync(provider: Provider, scope: ScopePolicyOptions, route: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!(SYNC_ROUTES as readonly string[]).includes(route))
    return sendJson(res, 404, { error: { code: 'not_found', message: `Not found: the sync routes are ${SYNC_ROUTES.join(', ')}` } });
  if (req.method !== 'POST') return sendJson(res, 405, { error: { code: 'invalid', message: 'Method not allowed: POST JSON' } }, { allow: 'POST' });
  try {
    const policy = new ScopePolicy(scope);
    if (policy.bound.length > 0 || !policy.allowSubscopes)
      throw new ScopeDeniedError('sync sends and receives the whole store: only a server bound to the global scope with subscopes allowed answers it');
    if (!('vector' in provider)) throw new UnavailableError('this store does not sync: it is not event-sourced');
    const body = await readJson(req, res);
    if (body === undefined) return;
    sendJson(res, 200, await call(provider as EventSourcedProvider, route as SyncRoute, body));
  } catch (error) {
    const { status, body } = syncErrorAnswer(error);
    if (status === 500) console.error('agentstate-mcp: a sync request failed:', error);
    sendJson(res, status, body);
  }
}
