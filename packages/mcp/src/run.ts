/**
 * `runMcpServer`: open the database, serve it over stdio or HTTP, and stop
 * cleanly. The `agentstate-mcp` bin and the `agentstate mcp` command are
 * thin shells around it.
 */
import type { Provider } from '@agentstate/core';
import { describeScope } from '@agentstate/core';
import { ScopePolicy } from './scope-policy.js';
import type { AgentStateServerOptions } from './server.js';
import { describeTarget, type EmbedderChoice, openDatabase, resolveTarget } from '@agentstate/open';
import { serveHttp, stderrLog, type HttpOptions } from './transports/http.js';
import { serveStdio } from './transports/stdio.js';

/** Options of {@link runMcpServer}. */
export interface RunMcpServerOptions extends AgentStateServerOptions {
  /** The database file (created when missing) or a `postgres://` URL. Default: `AGENTSTATE_DB`, else `.agentstate/state.db`. */
  db?: string;
  /** An opened provider to serve instead of `db`. It stays open when the server stops. */
  provider?: Provider;
  /** Embedder for hybrid recall when opening `db`. Default: the offline one (`'static'`); `'none'` for lexical recall. */
  embedder?: EmbedderChoice;
  /** `stdio` (default) or `http`. */
  transport?: 'stdio' | 'http';
  /** Where to listen with the `http` transport. */
  http?: HttpOptions;
  /** Where status lines go, and the failures of sync requests no typed error explains. Default: stderr, after `agentstate-mcp: ` (stdout belongs to the protocol). */
  log?: (line: string) => void;
}

/** A running server. */
export interface RunningMcpServer {
  /** The HTTP endpoint, with the `http` transport. */
  readonly url: string | undefined;
  /** The sync endpoint for `httpPeer` (docs/contract.md §12), with the `http` transport. */
  readonly syncUrl: string | undefined;
  /** Settles once the server has stopped: the stdio client went away, or {@link close} ran. */
  readonly closed: Promise<void>;
  /** Stops serving and closes the database it opened. Idempotent. */
  close(): Promise<void>;
}

/** Opens the database and serves it; resolves once the server is ready. */
export async function runMcpServer(options: RunMcpServerOptions = {}): Promise<RunningMcpServer> {
  const log = options.log ?? stderrLog;
  const bound = describeScope(new ScopePolicy(options).bound);
  const owned = options.provider === undefined;
  const dbPath = owned ? resolveTarget(options.db) : undefined;
  const provider = options.provider ?? (await openDatabase(dbPath, { embedder: options.embedder }));
  const what = dbPath === undefined ? `the ${provider.name} provider` : describeTarget(dbPath);

  let serving: { url?: string; syncUrl?: string; closed?: Promise<void>; close(): Promise<void> };
  try {
    serving = options.transport === 'http' ? await serveHttp(provider, options, options.http, log) : await serveStdio(provider, options);
    log(`serving ${what} ${serving.url === undefined ? 'over stdio' : `on ${serving.url}`}, bound to scope ${bound}`);
  } catch (error) {
    if (owned) await provider.close();
    throw error;
  }

  // It closes when asked to, or (over stdio) when the client goes away; either way once, database included.
  let requestClose!: () => void;
  const requested = new Promise<void>((resolve) => (requestClose = resolve));
  const closed = Promise.race([requested, serving.closed ?? requested]).then(async () => {
    await serving.close();
    if (owned) await provider.close();
  });
  return {
    url: serving.url,
    syncUrl: serving.syncUrl,
    closed,
    close: () => {
      requestClose();
      return closed;
    },
  };
}
