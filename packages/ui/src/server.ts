/**
 * The inspector's HTTP server: `node:http` on 127.0.0.1, the page's files,
 * the JSON API under `/api/` and the live feed at `/api/live`. Who may ask
 * is decided (`@agentstate/core/loopback`, `guard.ts`) before anything else is read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MIN_TOKEN_LENGTH, isLoopbackRequest, isOwnOriginOrNone, listenLocal, sendJson, tokenChecker } from '@agentstate/core/loopback';
import { Api, type InspectedProvider } from './api.js';
import { servePage } from './assets.js';
import { statusOf, UiOptionsError } from './errors.js';
import { presentedToken } from './guard.js';
import { HeadFeed } from './live.js';

/** The address the inspector listens on: loopback only. */
export const UI_HOST = '127.0.0.1';
/** The port it listens on unless told otherwise. */
export const DEFAULT_UI_PORT = 8777;

/** How to serve the inspector. */
export interface UiOptions {
  /** Port; 0 picks a free one. Default {@link DEFAULT_UI_PORT}. */
  port?: number;
  /**
   * A secret of at least 16 characters that every API call must present
   * (`Authorization: Bearer`, or `?token=` in the page's address). With it,
   * requests addressed to other host names are answered too (a tunnel, a
   * proxy); without it, only those addressed to loopback.
   */
  token?: string;
  /** Lets the page delete sessions, memory items and skills (each confirmed there). Default: read-only. */
  allowWrites?: boolean;
  /** The SQLite file, for the sizes the health view shows. */
  databaseFile?: string;
  /** How often the head of a log without subscriptions is polled for live updates, in ms. Default 500. */
  pollMs?: number;
}

/** A listening inspector. */
export interface UiHandle {
  /** The page's address, e.g. `http://127.0.0.1:8777/` (with `?token=` when a token is set). */
  readonly url: string;
  readonly port: number;
  /** Stops listening and ends open connections; the provider stays open. */
  close(): Promise<void>;
}

/** GET and HEAD read; every other method may change something. */
const isRead = (method: string | undefined): boolean => method === 'GET' || method === 'HEAD';

/** Refuses options that cannot work, before anything listens. */
function checkOptions(options: UiOptions): void {
  if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
    throw new UiOptionsError(`the token must be at least ${MIN_TOKEN_LENGTH} characters long`);
  }
  const port = options.port ?? DEFAULT_UI_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UiOptionsError(`invalid port: ${port}`);
}

/** Serves the inspector over `provider` on 127.0.0.1. The caller keeps the provider and closes it after the server. */
export async function serveUi(provider: InspectedProvider, options: UiOptions = {}): Promise<UiHandle> {
  checkOptions(options);
  const api = new Api(provider, { allowWrites: options.allowWrites === true, databaseFile: options.databaseFile });
  const feed = new HeadFeed(provider.log, options.pollMs ?? 500);
  const checkToken = options.token === undefined ? undefined : tokenChecker(options.token);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (checkToken === undefined && !isLoopbackRequest(req.headers.host, req.headers.origin))
      return sendJson(res, 403, { error: 'forbidden: this server only answers requests addressed to a loopback host from loopback pages' });
    if (checkToken === undefined && !isRead(req.method) && !isOwnOriginOrNone(req.headers.origin, req.headers.host, req.socket.localPort ?? 0))
      return sendJson(res, 403, { error: "forbidden: changes come from the inspector's own page, from no page, or with the token" });
    if (!url.pathname.startsWith('/api/')) {
      if (!isRead(req.method)) return sendJson(res, 405, { error: 'the page is read with GET' });
      return servePage(url.pathname, res);
    }
    // The page's files hold no data; the API does, so only it asks for the token.
    if (checkToken !== undefined && !checkToken(presentedToken(req.headers.authorization, url.searchParams))) {
      res.setHeader('www-authenticate', 'Bearer realm="agentstate"');
      sendJson(res, 401, { error: 'unauthorized: open the address with its ?token=, or send Authorization: Bearer <token>' });
      return;
    }
    if (url.pathname === '/api/live') return feed.attach(res);
    try {
      const value = await api.answer({ method: req.method ?? 'GET', path: url.pathname.slice('/api'.length), query: url.searchParams });
      sendJson(res, 200, value ?? null);
    } catch (error) {
      const status = statusOf(error);
      if (status === 500) console.error('agentstate ui: failed to answer', req.method, url.pathname, error);
      sendJson(res, status, { error: error instanceof Error ? error.message : String(error) });
    }
  };

  const fail = (res: ServerResponse) => sendJson(res, 500, { error: 'internal server error' });
  const { address, close } = await listenLocal(UI_HOST, options.port ?? DEFAULT_UI_PORT, 'agentstate ui', handle, fail);
  const token = options.token === undefined ? '' : `?token=${encodeURIComponent(options.token)}`;
  return {
    url: `http://${UI_HOST}:${address.port}/${token}`,
    port: address.port,
    close: () => {
      feed.close();
      return close();
    },
  };
}
