/**
 * Who may talk to the inspector. It listens on 127.0.0.1 only. Without a
 * token it answers only requests addressed to a loopback name (`Host`) and,
 * when a browser says where a request comes from (`Origin`), only loopback
 * pages; and it lets a request change something (any method but GET and
 * HEAD) only from no page or from its own page, so another local program's
 * page (a dev server on another port) cannot post a purge: the rules of
 * `@agentstate/core/loopback`, shared with the MCP server's HTTP
 * transport. With a token (for a tunnel or a proxy that
 * rewrites `Host`), every API call must present it instead, as
 * `Authorization: Bearer <token>` or, for the page's event stream, which
 * cannot set headers, as `?token=`.
 */

/** The token of a request: its bearer `Authorization`, else its `token` query parameter. */
export function presentedToken(authorization: string | undefined, query: URLSearchParams): string | undefined {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return bearer ? bearer[1] : (query.get('token') ?? undefined);
}
