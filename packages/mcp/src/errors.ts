/**
 * Every failure of a tool call becomes an MCP error result (`isError: true`)
 * with one line of text that starts with a stable code, never a crash:
 * `invalid: invalid content: must not be empty`, `not_found: skill not
 * found: deploy`, `conflict: …`, `scope_denied: …`. Errors agentstate did not
 * raise on purpose are logged to stderr and reported as `internal`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAgentStateError } from '@agentstate/core';

/** One line, so clients and logs show the whole message. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').trim();
}

/** The one-line, code-prefixed message of an error. */
export function errorMessage(error: unknown): string {
  if (isAgentStateError(error)) {
    const message = error.message.startsWith(`${error.code}:`) ? error.message : `${error.code}: ${error.message}`;
    return oneLine(message);
  }
  return oneLine(`internal: ${error instanceof Error ? error.message : String(error)}`);
}

/** The MCP error result of a failed tool call. */
export function toolError(error: unknown): CallToolResult {
  if (!isAgentStateError(error)) console.error('agentstate-mcp: unexpected error in a tool call:', error);
  return { content: [{ type: 'text', text: errorMessage(error) }], isError: true };
}
