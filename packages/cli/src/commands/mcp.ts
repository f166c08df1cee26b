/**
 * `agentstate mcp …`: serves the database over the Model Context Protocol by
 * handing the rest of the line to `@agentstate/mcp`, whose flags (stdio or
 * Streamable HTTP, scope, token) are documented there. It is dispatched
 * before commander parses anything, because the server's flags are its own.
 * The server (and the MCP SDK under it) is loaded only when `mcp` runs.
 */
import { Command } from 'commander';
import { io } from '../io.js';

/** The help entry of `mcp`; the command itself runs through {@link mcpArguments}. */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('serve the database to MCP clients over stdio or Streamable HTTP (agentstate mcp --help)')
    .allowUnknownOption()
    .helpOption(false);
}

/**
 * When `args` (the command line after the program name) names the `mcp`
 * command, the arguments for the server: the global `--db` is passed on.
 * Otherwise undefined.
 */
export function mcpArguments(args: readonly string[]): string[] | undefined {
  const passed: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--db' && i + 1 < args.length) {
      passed.push(arg, args[i + 1]!);
      i += 1;
    } else if (arg.startsWith('--db=')) {
      passed.push(arg);
    } else if (arg === '--json') {
      // The global --json is the CLI's, not the server's: it is not passed on.
    } else {
      return arg === 'mcp' ? [...passed, ...args.slice(i + 1)] : undefined;
    }
  }
  return undefined;
}

/** Runs the MCP server; it exits with the codes of every `agentstate` command. */
export async function runMcp(args: readonly string[]): Promise<number> {
  const { mcpMain } = await import('@agentstate/mcp');
  return mcpMain(args, io(), 'agentstate mcp');
}
