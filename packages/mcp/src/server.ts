/**
 * The server factory: an `McpServer` whose tools and resources read and
 * write one agentstate provider, inside the scope it is bound to.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { IdGenerator, Provider } from '@agentstate/core';
import { describeScope, UuidV7Generator } from '@agentstate/core';
import { registerResources } from './resources.js';
import { ScopePolicy, type ScopePolicyOptions } from './scope-policy.js';
import { registerTools, type ToolContext } from './tools/context.js';
import { memoryTools } from './tools/memory.js';
import { namespacesTool } from './tools/namespaces.js';
import { stateDiffTool } from './tools/diff.js';
import { memoryHistoryTool, purgeTool } from './tools/lifecycle.js';
import { sessionTools } from './tools/sessions.js';
import { skillTools } from './tools/skills.js';
import { PACKAGE_VERSION } from './version.js';

/** Options of {@link createAgentStateServer}. */
export interface AgentStateServerOptions extends ScopePolicyOptions {
  /** Server name reported to clients. Default: `agentstate`. */
  name?: string;
  /**
   * Makes the UUIDv7 part of new session ids. Servers sharing one provider
   * in a process (one per HTTP request) should share one. Default: a new one.
   */
  ids?: IdGenerator;
  /** Registers the `purge` tool, which erases for good (docs/contract.md §7). Default: false. */
  allowPurge?: boolean;
}

/** How much of a client's name goes into the default `source` of memory. */
const MAX_CLIENT_NAME = 200;

/** The tools every server registers, by name, in the order clients list them. */
const TOOLS = { ...memoryTools, ...skillTools, ...sessionTools, namespaces: namespacesTool, state_diff: stateDiffTool, memory_history: memoryHistoryTool };

/** The tools registered only when the operator allows them (`allowPurge`). */
const DESTRUCTIVE_TOOLS = { purge: purgeTool };

/** The names of every tool the server registers. */
export const TOOL_NAMES = Object.keys(TOOLS) as readonly (keyof typeof TOOLS)[];

function instructions(policy: ScopePolicy): string {
  const extra = [
    policy.allowSubscopes ? 'Calls may narrow to scopes under it (pass `scope`, a path relative to it, e.g. `["api"]`).' : 'Calls cannot leave it.',
    policy.readParents ? 'Reads include its parent scopes (shared and global skills and memory).' : '',
  ];
  return [
    `Durable memory, skills and session transcripts from agentstate, bound to scope ${describeScope(policy.bound)}.`,
    ...extra.filter(Boolean),
    'Use `recall` before answering from prior work and `remember` for durable facts; look for a skill with `skill_search` before a multi-step task, and `skill_record_outcome` after using one.',
  ].join(' ');
}

/**
 * Builds an MCP server over `provider`. The provider stays the caller's:
 * closing the server does not close it. Connect the result to a transport
 * (`StdioServerTransport`, `StreamableHTTPServerTransport`) or use
 * {@link runMcpServer}, which does both.
 */
export function createAgentStateServer(provider: Provider, options: AgentStateServerOptions = {}): McpServer {
  const policy = new ScopePolicy(options);
  const server = new McpServer(
    { name: options.name ?? 'agentstate', version: PACKAGE_VERSION },
    { instructions: instructions(policy), capabilities: { tools: {}, resources: {} } },
  );
  const ctx: ToolContext = {
    provider,
    policy,
    ids: options.ids ?? new UuidV7Generator(),
    defaultSource: () => {
      const client = server.server.getClientVersion()?.name.replaceAll('\u0000', '').slice(0, MAX_CLIENT_NAME);
      return client ? `mcp:${client}` : 'mcp';
    },
  };
  registerTools(server, ctx, options.allowPurge === true ? { ...TOOLS, ...DESTRUCTIVE_TOOLS } : TOOLS);
  registerResources(server, ctx);
  return server;
}
