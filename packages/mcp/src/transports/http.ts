/**
 * Serving over Streamable HTTP (stateless: every POST carries its own
 * JSON-RPC exchange, answered as JSON). Bound to 127.0.0.1 by default.
 * Listening on any other address needs a bearer token; when a token is set,
 * every request without `Authorization: Bearer <token>` gets 401. A server
 * on loopback also refuses requests whose `Host` or `Origin` is not a
 * loopback name, so web pages cannot reach it by DNS rebinding; and, without
 * a token, every request from a page (an `Origin` other than its own), so
 * another local program's page cannot post tool calls to it. The same guard
 * stands before the sync routes under `/sync` (./sync-routes.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from '@agentstate/core';
import { SYNC_PATH, UuidV7Generator } from '@agentstate/core';
import { createAgentStateServer, type AgentStateServerOptions } from '../server.js';
import { MIN_TOKEN_LENGTH, isLoopbackHost, isLoopbackRequest, isOwnOriginOrNone, listenLocal, sendJson, tokenChecker } from '@agentstate/core/loopback';
import { UsageError } from '../usage-error.js';
import { answerSync } from './sync-routes.js';

/** The address the HTTP server listens on unless told otherwise. */
export const DEFAULT_HOST = '127.0.0.1';
/** The port the HTTP server listens on unless told otherwise. */
export const DEFAULT_PORT = 8765;
/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** The largest request body accepted: room for a 1,000,000-character memory item, escaped. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Where and how to listen. */
export interface HttpOptions {
  /** Address to bind. Default `127.0.0.1`. Anything but loopback requires `token`. */
  host?: string;
  /** Port; 0 picks a free one. Default 8765. */
  port?: number;
  /** Bearer token every request must present (at least 16 characters). */
  token?: string;
}

/** A listening HTTP server. */
export interface HttpHandle {
  /** The endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
  /** The sync endpoint, e.g. `http://127.0.0.1:8765/sync`: give it to `httpPeer` (docs/contract.md §12). */
  readonly syncUrl: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening and drops open connections; the provider stays open. */
  close(): Promise<void>;
}

function sendJsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

/** Refuses options that would expose the database, before anything listens. */
export function checkHttpOptions(options: HttpOptions): void {
  const host = options.host ?? DEFAULT_HOST;
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(`the bearer token must be at least ${MIN_TOKEN_LENGTH} characters long`);
  }
  if (!isLoopbackHost(host) && options.token === undefined) {
    throw new UsageError(`refusing to listen on ${host} without a bearer token: set one with --token or AGENTSTATE_MCP_TOKEN`);
  }
  const port = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port: ${port}`);
}

/** Where status lines go unless the caller says: stderr, after `agentstate-mcp: ` (stdout belongs to the stdio protocol). */
export const stderrLog = (line: string): void => console.error(`agentstate-mcp: ${line}`);

/** Serves `provider` over Streamable HTTP at `/mcp`; `log` hears of sync requests that failed unexpectedly. */
export async function serveHttp(
  provider: Provider,
  serverOptions: AgentStateServerOptions = {},
  options: HttpOptions = {},
  log: (line: string) => void = stderrLog,
): Promise<HttpHandle> {
  checkHttpOptions(options);
  // Loaded here, not with the module: the SDK's HTTP transport brings Hono, which a stdio server never needs.
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const host = options.host ?? DEFAULT_HOST;
  const loopback = isLoopbackHost(host);
  // tokenChecker compares in constant time, whatever the presented token.
  const check = options.token === undefined ? undefined : tokenChecker(options.token);
  const authorized = (header: string | undefined) => check === undefined || check(/^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1]);
  const shared = { ...serverOptions, ids: serverOptions.ids ?? new UuidV7Generator() };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!authorized(req.headers.authorization))
      return sendJsonError(res, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="agentstate"' });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const syncRoute = path.startsWith(`${SYNC_PATH}/`) ? path.slice(SYNC_PATH.length + 1) : undefined;
    if (path !== MCP_PATH && syncRoute === undefined) return sendJsonError(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}, sync is at ${SYNC_PATH}`);
    if (loopback) {
      const { host: hostHeader, origin } = req.headers;
      if (!isLoopbackRequest(hostHeader, origin)) return sendJsonError(res, 403, 'Forbidden: this server only answers requests addressed to a loopback host');
      // Every call may write: without a token, none may come from another program's page.
      if (options.token === undefined && !isOwnOriginOrNone(origin, hostHeader, req.socket.localPort ?? 0))
        return sendJsonError(res, 403, 'Forbidden: without a token this server answers no web page but its own');
    }
    if (syncRoute !== undefined) return answerSync(provider, serverOptions, syncRoute, req, res, log);
    if (req.method !== 'POST') return sendJsonError(res, 405, 'Method not allowed: this server is stateless, POST JSON-RPC to it', { allow: 'POST' });
    const server = createAgentStateServer(provider, shared);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const { address, close } = await listenLocal(host, options.port ?? DEFAULT_PORT, 'agentstate-mcp', handle, (res) =>
    sendJsonError(res, 500, 'Internal server error'),
  );
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}${MCP_PATH}`,
    syncUrl: `http://${urlHost}:${address.port}${SYNC_PATH}`,
    host: address.address,
    port: address.port,
    close,
  };
}
