/**
 * Serving over stdio: the client owns the process and speaks JSON-RPC on its
 * stdin and stdout. Nothing else may write to stdout, so logs go to stderr.
 * The server stops when stdin ends.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Provider } from '@agentstate/core';
import { createAgentStateServer, type AgentStateServerOptions } from '../server.js';

/** A server running on stdio. */
export interface StdioHandle {
  /** Settles when the client went away (stdin ended) or {@link close} was called. */
  readonly closed: Promise<void>;
  /** Disconnects; the provider stays open. */
  close(): Promise<void>;
}

/** Serves `provider` on the process's stdin and stdout. */
export async function serveStdio(provider: Provider, options: AgentStateServerOptions = {}): Promise<StdioHandle> {
  const server = createAgentStateServer(provider, options);
  const transport = new StdioServerTransport();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  transport.onclose = () => resolveClosed();
  const onEnd = (): void => void server.close().finally(resolveClosed);
  process.stdin.once('end', onEnd);
  process.stdin.once('close', onEnd);
  await server.connect(transport);
  return {
    closed,
    async close() {
      process.stdin.off('end', onEnd);
      process.stdin.off('close', onEnd);
      await server.close();
      resolveClosed();
    },
  };
}
