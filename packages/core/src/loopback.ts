/**
 * The local HTTP servers of agentstate (the MCP server's HTTP transport, the
 * inspector): how they listen and close, and who may talk to them: the loopback rules that keep a web page from
 * reaching a server bound to 127.0.0.1 through DNS rebinding (`Host` and
 * `Origin` must name this machine), who may change state without a token
 * (no page, or the server's own page: never another local program's page),
 * and the constant-time token check used when a token stands in for them; and how they answer JSON. One module, so the servers cannot drift
 * apart; published as `@agentstate/core/loopback`, outside the main entry,
 * because only servers need it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';

/** Answers with `body` as JSON, never cached (an answer reflects the store as it is), and `headers` besides. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** The shortest token a server accepts. */
export const MIN_TOKEN_LENGTH = 16;

/** True for names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1' || h === '0:0:0:0:0:0:0:1' || h.startsWith('::ffff:127.');
}

/** The host part of a `Host` header (`127.0.0.1:8765`, `[::1]:8765`, `localhost`). */
export function hostnameOf(hostHeader: string): string {
  const v6 = /^\[([^\]]*)\](?::\d+)?$/.exec(hostHeader);
  if (v6) return v6[1]!;
  const i = hostHeader.lastIndexOf(':');
  return i === -1 ? hostHeader : hostHeader.slice(0, i);
}

/** True when `origin` (an `Origin` header) is a page served from a loopback host. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** Whether a request is addressed to loopback (`Host`) and comes from a loopback page or from no page (`Origin`). */
export function isLoopbackRequest(host: string | undefined, origin: string | undefined): boolean {
  return isLoopbackHost(hostnameOf(host ?? '')) && (origin === undefined || isLoopbackOrigin(origin));
}

/**
 * Whether a request may change state on a server at `port` without a token:
 * it comes from no page (no `Origin`), or from a page of this very server
 * (`Origin` is exactly `http://` and the request's loopback `Host`, whose port
 * is `port`). Browsers send `Origin` with every request but GET and HEAD, a
 * form's or a `no-cors` fetch's too (`null` when they hide it), so another
 * program's page (a dev server on another port) can neither drop it nor
 * pose as this server; and it cannot send a token, which rides in a header
 * that needs a CORS preflight these servers never grant, or in an address
 * it does not know.
 */
export function isOwnOriginOrNone(origin: string | undefined, host: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  if (host === undefined || origin.toLowerCase() !== `http://${host}`.toLowerCase()) return false;
  try {
    const url = new URL(origin);
    return isLoopbackHost(url.hostname) && Number(url.port || 80) === port;
  } catch {
    return false;
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker of presented tokens against `token`: both sides are hashed
 * first, so the comparison takes the same time whatever was presented.
 */
export function tokenChecker(token: string): (presented: string | undefined) => boolean {
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented ?? ''), expected) && presented !== undefined;
}

// A client reuses an idle connection until shortly before the server's keep-alive timeout (Node's default: 5 s); on
// a busy machine a request sent inside that margin can reach a socket the server is closing ("other side closed").
// A long timeout leaves the closing of idle connections to the clients.
const KEEP_ALIVE_MS = 65_000;

/**
 * Serves `handle` on `host`:`port` (0 picks a free one) with {@link KEEP_ALIVE_MS}, once bound. A request whose
 * `handle` throws is logged under `name` and answered by `fail`, unless it was already answered in part.
 */
export async function listenLocal(
  host: string,
  port: number,
  name: string,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  fail: (res: ServerResponse) => void,
): Promise<{ address: AddressInfo; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`${name}: failed to answer an HTTP request:`, error);
      if (!res.headersSent) fail(res);
      else res.end();
    });
  });
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.listen(port, host);
  await once(http, 'listening'); // rejects on 'error' (a port in use)
  return {
    address: http.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
