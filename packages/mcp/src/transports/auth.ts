/**
 * The bearer-token check of the HTTP transport. The loopback rules and the
 * constant-time comparison it rests on live in `@agentstate/core/loopback`,
 * shared with the inspector's server.
 */
import { tokenChecker } from '@agentstate/core/loopback';

/**
 * Makes a checker of `Authorization` headers against `token`. Both sides are
 * hashed first, so the comparison takes the same time whatever the length
 * or content of the presented token.
 */
export function bearerChecker(token: string): (header: string | undefined) => boolean {
  const check = tokenChecker(token);
  return (header) => check(/^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1]);
}
