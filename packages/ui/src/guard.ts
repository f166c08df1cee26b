/**
 * Who may talk to the inspector. It listens on 127.0.0.1 only. Without a
 * token it answers only requests addressed to a loopback name (`Host`) and,
 * when a browser says where a request comes from (`Origin`), only loopback
 * pages, so a web page cannot reach it through DNS rebinding; these are the
 * checks of the MCP server's HTTP transport. With a token (for a tunnel or a
 * proxy that rewrites `Host`), every API call must present it instead, as
 * `Authorization: Bearer <token>` or, for the page's event stream, which
 * cannot set headers, as `?token=`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The shortest token the server accepts. */
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

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker of presented tokens against `token`: both sides are hashed
 * first, so the comparison takes the same time whatever was presented.
 */
export function tokenChecker(token: string): (presented: string | undefined) => boolean {
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented ?? ''), expected) && presented !== undefined;
}

/** The token of a request: its bearer `Authorization`, else its `token` query parameter. */
export function presentedToken(authorization: string | undefined, query: URLSearchParams): string | undefined {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return bearer ? bearer[1] : (query.get('token') ?? undefined);
}

/** Whether a request without a token is addressed to loopback and comes from a loopback page (or no page). */
export function isLoopbackRequest(host: string | undefined, origin: string | undefined): boolean {
  return isLoopbackHost(hostnameOf(host ?? '')) && (origin === undefined || isLoopbackOrigin(origin));
}
