/**
 * Who may talk to the HTTP server: the bearer-token check (constant time)
 * and the loopback rules that keep web pages from reaching a server bound
 * to 127.0.0.1 through DNS rebinding.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The shortest bearer token the server accepts. */
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

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Makes a checker of `Authorization` headers against `token`. Both sides are
 * hashed first, so the comparison takes the same time whatever the length
 * or content of the presented token.
 */
export function bearerChecker(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    const presented = digest(m ? m[1]! : '');
    return timingSafeEqual(presented, expected) && m !== null;
  };
}
