/**
 * @agentstate/mcp — an MCP server that gives any MCP-capable agent durable
 * sessions, skills and memory from an agentstate database, bound to one
 * scope, over stdio or Streamable HTTP.
 *
 * The surface: the server factory and the runner with their options, the
 * whole command line (`mcpMain`, for hosts such as `agentstate mcp`), and the
 * errors the server raises on purpose.
 */
export { createAgentStateServer, TOOL_NAMES, type AgentStateServerOptions } from './server.js';
export { runMcpServer, type RunMcpServerOptions, type RunningMcpServer } from './run.js';
export { type McpIo, mcpMain } from './main.js';
export { ScopeDeniedError, type ScopePolicyOptions } from './scope-policy.js';
export type { HttpOptions } from './transports/http.js';
export type { EmbedderChoice } from '@agentstate/open';
export { UsageError } from './usage-error.js';
