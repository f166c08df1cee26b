/**
 * The command line of `agentstate-mcp` (and of `agentstate mcp`, which
 * hands its arguments over): flags to {@link RunMcpServerOptions}. Every
 * mistake is a {@link UsageError} naming the flag, raised before anything
 * is opened.
 */
import { parseArgs } from 'node:util';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH } from '@agentstate/open/defaults';
import type { ScopeInput } from '@agentstate/core';
import { parseScopeText, ValidationError } from '@agentstate/core';
import type { RunMcpServerOptions } from './run.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './transports/http.js';
import { UsageError } from './usage-error.js';

/** The environment variable holding the HTTP bearer token (safer than `--token`, which `ps` shows). */
export const TOKEN_ENV = 'AGENTSTATE_MCP_TOKEN';

/** The program name the help and messages use unless told otherwise. */
export const PROGRAM_NAME = 'agentstate-mcp';

/** The help text, for the program called `name`. */
export function usage(name: string = PROGRAM_NAME): string {
  return `Usage: ${name} [options]

Serves an agentstate database (durable memory, skills and session
transcripts) over the Model Context Protocol.

Database
  --db PATH             database file, created when missing, or a
                        postgres://… URL (?schema=NAME: default agentstate)
                        (default: $${DATABASE_ENV}, else ${DEFAULT_DATABASE_PATH})
  --embedder NAME       static (the default: recall is hybrid, with the
                        offline embedder) or none (recall is lexical unless a
                        call asks for semantic or hybrid)

Scope (fixed for the life of the server)
  --scope PATH          bind to this scope: labels separated by / (team/web),
                        a JSON array of labels, or / for global
  --allow-subscopes     let calls narrow to scopes under the bound one
  --read-parents        let reads include the bound scope's parents (global skills…)
  --allow-purge         offer the purge tool, which erases records for good

Transport (default: stdio)
  --http                serve Streamable HTTP at /mcp instead
  --host HOST           address to bind (default ${DEFAULT_HOST}); anything but
                        loopback requires a token
  --port N              port (default ${DEFAULT_PORT}; 0 picks a free one)
  --token TOKEN         bearer token every request must send, at least 16
                        characters (default: $${TOKEN_ENV})

  -h, --help            show this help
  -V, --version         show the version
`;
}

/** The help text of `agentstate-mcp`. */
export const USAGE = usage();

/** What the command line asks for. */
export type McpCommand = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; options: RunMcpServerOptions };

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`--${flag} must not be empty`);
  return value;
}

/** The bound scope: `--scope` (`a/b`, a JSON array, `/` for global); the global scope when not given. */
function boundScope(scope: string | undefined): ScopeInput {
  if (scope === undefined) return [];
  try {
    return parseScopeText(scope, '--scope');
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(error.message);
    throw error;
  }
}

/** Parses `argv` (without the node and script paths). */
export function parseMcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): McpCommand {
  // biome-ignore lint/suspicious/noImplicitAnyLet: TypeScript types `values` from the parseArgs call below (control-flow typing); it is never any.
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        db: { type: 'string' },
        embedder: { type: 'string' },
        scope: { type: 'string' },
        'allow-subscopes': { type: 'boolean' },
        'read-parents': { type: 'boolean' },
        'allow-purge': { type: 'boolean' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const embedder = values.embedder;
  if (embedder !== undefined && embedder !== 'static' && embedder !== 'none') {
    throw new UsageError(`--embedder must be static or none, not ${JSON.stringify(embedder)}`);
  }
  const http = values.http === true;
  for (const flag of ['host', 'port', 'token'] as const) {
    if (!http && values[flag] !== undefined) throw new UsageError(`--${flag} only applies with --http`);
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535)
      throw new UsageError(`--port must be a number from 0 to 65535, not ${JSON.stringify(values.port)}`);
    port = Number(values.port);
  }
  const token = nonEmpty('token', values.token) ?? (http ? env[TOKEN_ENV] || undefined : undefined);

  const options: RunMcpServerOptions = {
    db: nonEmpty('db', values.db),
    embedder,
    scope: boundScope(values.scope),
    allowSubscopes: values['allow-subscopes'] === true,
    readParents: values['read-parents'] === true,
    allowPurge: values['allow-purge'] === true,
    transport: http ? 'http' : 'stdio',
  };
  if (http) options.http = { host: nonEmpty('host', values.host), port, token };
  return { kind: 'run', options };
}
