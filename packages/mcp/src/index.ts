/**
 * @agentstate/mcp — an MCP server that gives any MCP-capable agent durable
 * sessions, skills and memory from an agentstate database, bound to one
 * scope, over stdio or Streamable HTTP.
 */
export { createAgentStateServer, TOOL_NAMES, type AgentStateServerOptions } from './server.js';
export { runMcpServer, type RunMcpServerOptions, type RunningMcpServer } from './run.js';
export { mcpMain } from './main.js';
export { parseMcpArgs, usage, USAGE, PROGRAM_NAME, TOKEN_ENV, type McpCommand } from './args.js';
export { ScopePolicy, ScopeDeniedError, type ScopePolicyOptions } from './scope-policy.js';
export { serveStdio, type StdioHandle } from './transports/stdio.js';
export { serveHttp, checkHttpOptions, DEFAULT_HOST, DEFAULT_PORT, MCP_PATH, type HttpOptions, type HttpHandle } from './transports/http.js';
export { isLoopbackHost, MIN_TOKEN_LENGTH } from './transports/auth.js';
export { loadEmbedder, type EmbedderChoice } from './embedder.js';
export { sessionUri, skillUri } from './resources.js';
export { UsageError } from './usage-error.js';
export { PACKAGE_VERSION } from './version.js';
