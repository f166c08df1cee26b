/**
 * Sync over HTTP (docs/contract.md §12): the routes a server answers under {@link SYNC_PATH}, the
 * JSON its errors travel as, and {@link httpPeer}, the client side. Defined once here, so the
 * server (the MCP server's HTTP transport) and the client cannot drift apart.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isAgentStateError, SyncConflictError, SyncHttpError, UnavailableError, ValidationError } from '../errors.js';
import type { Vector } from '../log/log.js';
import type { PolicyMerge } from '../provider/retention.js';
import type { ReceiveResult } from './receive.js';
import type { SyncPeer, SyncStarted } from './sync.js';
import type { SyncEvent } from './wire.js';

/** The path under which a server answers sync: `POST /sync/start`, `/sync/vector`, `/sync/changes`, `/sync/receive`, `/sync/retention`. */
export const SYNC_PATH = '/sync';
/** The sync routes, each a POST of JSON answered with JSON. */
export const SYNC_ROUTES = ['start', 'vector', 'changes', 'receive', 'retention'] as const;
/** One of {@link SYNC_ROUTES}. */
export type SyncRoute = (typeof SYNC_ROUTES)[number];
/** The largest request body a sync route accepts: a peer sends a larger batch as several requests. */
export const SYNC_MAX_BODY = 8 * 1024 * 1024;

/** The JSON of a sync error: the error's code and message, and the fields its class carries. */
interface ErrorJson {
  code: string;
  message: string;
  field?: string;
  reason?: SyncConflictError['reason'];
  origin?: string;
  originSeq?: number;
  record?: string;
}

/**
 * The HTTP status and JSON body that answer a failed sync call: 400 for a malformed request
 * (`invalid`), 403 for a server whose scope forbids sync (`scope_denied`), 409 for a refused
 * batch (`diverged`), 503 for a store that does not sync
 * (`unavailable`), 500 for anything else (`internal` when agentstate did not raise it).
 */
export function syncErrorAnswer(error: unknown): { status: number; body: { error: ErrorJson } } {
  if (!isAgentStateError(error)) return { status: 500, body: { error: { code: 'internal', message: 'internal error' } } };
  const json: ErrorJson = { code: error.code, message: error.message };
  if (error instanceof ValidationError) json.field = error.field;
  if (error instanceof SyncConflictError) Object.assign(json, { reason: error.reason, origin: error.origin, originSeq: error.originSeq, record: error.record });
  const status = { invalid: 400, scope_denied: 403, diverged: 409, unavailable: 503 }[error.code as string] ?? 500;
  return { status, body: { error: json } };
}

/** The typed error an answer of `status` with `body` stands for: the server's own, where it sent one. */
function errorFrom(status: number, body: unknown, url: string): Error {
  const json = (body as { error?: Partial<ErrorJson> } | undefined)?.error;
  const message = typeof json?.message === 'string' ? json.message : `HTTP ${status}`;
  if (json?.code === 'invalid' && typeof json.field === 'string')
    return new ValidationError(json.field, message.slice(json.field === '' ? 'invalid input: '.length : `invalid ${json.field}: `.length));
  if (json?.code === 'diverged' && json.reason !== undefined && typeof json.origin === 'string' && typeof json.originSeq === 'number')
    return new SyncConflictError(json.reason, json.origin, json.originSeq, message, json.record);
  if (json?.code === 'unavailable') return new UnavailableError(message);
  return new SyncHttpError(status, `sync request to ${url} failed with HTTP ${status}: ${message}`);
}

/** Options of {@link httpPeer}. */
export interface HttpPeerOptions {
  /** The server's bearer token, sent as `Authorization: Bearer <token>`. */
  token?: string;
}

/** The request bodies of a receive of `events`, each at most {@link SYNC_MAX_BODY} bytes with its options (64 KiB for them) unless one event alone is larger. */
function receiveBodies(events: readonly SyncEvent[]): string[] {
  const bodies: string[] = [];
  let part: string[] = [];
  let size = 0;
  for (const event of events) {
    const json = JSON.stringify(event);
    const bytes = Buffer.byteLength(json) + 1;
    if (part.length > 0 && size + bytes > SYNC_MAX_BODY - 65_536) {
      bodies.push(`{"events":[${part.join(',')}]}`);
      [part, size] = [[], 0];
    }
    part.push(json);
    size += bytes;
  }
  return [...bodies, `{"events":[${part.join(',')}]}`];
}

/**
 * An idle connection is closed after this long, well before the server closes it (`listenLocal`: 65 s), so a
 * request never goes out on a connection the server is closing.
 */
const IDLE_MS = 30_000;

/** POSTs `body` to `target` over a connection of `agent` (one kept open between the requests of a sync); the status and text of the answer. */
function postOnce(target: string, agent: HttpAgent, headers: Record<string, string | number>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const options: RequestOptions = { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } };
    const answer = (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    };
    const request = (agent instanceof HttpsAgent ? httpsRequest : httpRequest)(target, options, answer);
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * The store a server serves at `url` (its sync endpoint, `http://host:port/sync`), as a
 * {@link SyncPeer}: `sync(local, httpPeer(url, { token }))` syncs a local store with it. The
 * server's errors come back as the same typed errors (`ValidationError`, `SyncConflictError`,
 * `UnavailableError`), any other failure as a {@link SyncHttpError}. A batch whose JSON is over
 * {@link SYNC_MAX_BODY} goes as several requests, each received whole, in order. Its requests share
 * a kept-alive connection (node:http: a third of `fetch`'s CPU a request), which holds no process open.
 */
export function httpPeer(url: string, options: HttpPeerOptions = {}): SyncPeer {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const agent = new (/^https:/i.test(base) ? HttpsAgent : HttpAgent)({ keepAlive: true, timeout: IDLE_MS });
  const post = async <T>(route: SyncRoute, body: string): Promise<T> => {
    const target = `${base}/${route}`;
    let response: { status: number; text: string };
    try {
      response = await postOnce(target, agent, headers, body);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new SyncHttpError(undefined, `sync request to ${target} got no answer: ${reason}`, { cause });
    }
    let answer: unknown;
    try {
      answer = JSON.parse(response.text);
    } catch {
      answer = undefined;
    }
    if (response.status < 200 || response.status > 299 || answer === undefined) throw errorFrom(response.status, answer, target);
    return answer as T;
  };
  let identity: Promise<string> | undefined;
  return {
    start: async ({ vector, limit, scope, changes, replicaId }) => post<SyncStarted>('start', JSON.stringify({ vector, limit, scope, changes, replicaId })),
    vector: async (vectorOptions = {}) => (await post<{ vector: Vector }>('vector', JSON.stringify({ scope: vectorOptions.scope }))).vector,
    // A store's replica id never changes: asked once per peer (again after a failed ask).
    replicaId: () =>
      (identity ??= post<{ replicaId: string }>('vector', '{}').then(
        (answer) => answer.replicaId,
        (error: unknown) => {
          identity = undefined;
          throw error;
        },
      )),
    changes: async (vector, changeOptions = {}) => (await post<{ events: SyncEvent[] }>('changes', JSON.stringify({ vector, ...changeOptions }))).events,
    async receive(events, receiveOptions = {}) {
      const total: ReceiveResult = { received: 0, skipped: 0, merged: 0 };
      const bodies = receiveBodies(events);
      for (const [i, body] of bodies.entries()) {
        // The sync's word on what the store now holds goes with the last part only.
        const { scope, covered, from } = receiveOptions;
        const options = JSON.stringify({ scope, covered: i === bodies.length - 1 ? covered : undefined, from }).slice(1, -1);
        const { received, skipped, merged } = await post<ReceiveResult>('receive', options === '' ? body : `${body.slice(0, -1)},${options}}`);
        total.received += received;
        total.skipped += skipped;
        total.merged += merged;
      }
      return total;
    },
    retention: { merge: async (changes) => post<PolicyMerge>('retention', JSON.stringify({ changes })) },
  };
}
