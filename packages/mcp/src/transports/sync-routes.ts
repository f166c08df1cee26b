/**
 * The sync routes of the HTTP transport (docs/contract.md §12): `POST /sync/start`, `/sync/vector`,
 * `/sync/changes`, `/sync/receive` and `/sync/retention` over the served provider, behind the transport's guard.
 * They send and receive the events of the server's bound scope's subtree, or of a narrower one a
 * request names when subscopes are allowed (docs/contract.md §12, "Scoped sync"); retention
 * policies, only with a server that syncs the whole store.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventSourcedProvider, PolicyChange, Provider, SyncEvent, SyncPlace, Vector } from '@agentstate/core';
import {
  describeScope,
  sameScope,
  scopeStartsWith,
  SYNC_MAX_BODY,
  SYNC_ROUTES,
  type SyncRoute,
  syncErrorAnswer,
  syncScope,
  startSync,
  UnavailableError,
  ValidationError,
} from '@agentstate/core';
import { sendJson } from '@agentstate/core/loopback';
import { ScopeDeniedError, ScopePolicy, type ScopePolicyOptions } from '../scope-policy.js';

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

/**
 * What `route` answers with `body`, from `provider`, limited to the subtree `policy` reaches: the bound
 * scope's, or the narrower one a request names (only with subscopes allowed); never a wider one.
 */
async function call(provider: EventSourcedProvider, policy: ScopePolicy, route: SyncRoute, body: unknown): Promise<unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('', 'the request body must be a JSON object');
  // Unchecked here: the provider checks the vector, the limit, the place and every event before it reads or writes.
  const input = body as {
    vector: Vector;
    limit?: number;
    after?: SyncPlace;
    scope?: unknown;
    covered?: Vector;
    from?: Vector;
    events: SyncEvent[];
    changes?: PolicyChange[];
    replicaId?: string;
  };
  const scope = syncScope(input.scope ?? policy.bound);
  if (!scopeStartsWith(scope, policy.bound) || (!sameScope(scope, policy.bound) && !policy.allowSubscopes))
    throw new ScopeDeniedError(
      `scope: this server syncs the subtree at ${describeScope(policy.bound)}${policy.allowSubscopes ? ' or a narrower one' : ''}, not ${describeScope(scope)}`,
    );
  // A removal names no scope: policies travel only where the whole store does (docs/contract.md §12).
  if ((route === 'retention' || (route === 'start' && input.changes !== undefined)) && scope.length !== 0)
    throw new ScopeDeniedError(
      `scope: this server syncs the subtree at ${describeScope(scope)}, not the whole store with its retention policies: sync with the scope ${describeScope(scope)}`,
    );
  if (route === 'retention') return provider.retention.merge(input.changes as PolicyChange[]);
  if (route === 'start')
    return startSync(provider, {
      vector: input.vector,
      limit: input.limit as number,
      scope,
      ...(input.changes ? { changes: input.changes } : {}),
      ...(input.replicaId === undefined ? {} : { replicaId: input.replicaId }),
    });
  if (route === 'vector') return { vector: await provider.vector({ scope }), replicaId: await provider.replicaId() };
  if (route === 'changes')
    return { events: await provider.changes(input.vector, { limit: input.limit, scope, ...(input.after ? { after: input.after } : {}) }) };
  return provider.receive(input.events, { scope, ...(input.covered ? { covered: input.covered } : {}), ...(input.from ? { from: input.from } : {}) });
}

/**
 * Answers `POST <SYNC_PATH>/<route>` with JSON: the route's result, or the typed error as
 * {@link syncErrorAnswer} maps it. `route` is what follows the sync path; `log` hears of a failure no typed error explains.
 */
export async function answerSync(
  provider: Provider,
  scope: ScopePolicyOptions,
  route: string,
  req: IncomingMessage,
  res: ServerResponse,
  log: (line: string) => void,
): Promise<void> {
  if (!(SYNC_ROUTES as readonly string[]).includes(route))
    return sendJson(res, 404, { error: { code: 'not_found', message: `Not found: the sync routes are ${SYNC_ROUTES.join(', ')}` } });
  if (req.method !== 'POST') return sendJson(res, 405, { error: { code: 'invalid', message: 'Method not allowed: POST JSON' } }, { allow: 'POST' });
  try {
    const policy = new ScopePolicy(scope);
    if (!('vector' in provider)) throw new UnavailableError('this store does not sync: it is not event-sourced');
    const body = await readJson(req, res);
    if (body === undefined) return;
    sendJson(res, 200, await call(provider as EventSourcedProvider, policy, route as SyncRoute, body));
  } catch (error) {
    const { status, body } = syncErrorAnswer(error);
    if (status === 500) log(`a sync request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    sendJson(res, status, body);
  }
}
