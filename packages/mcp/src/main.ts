/**
 * The `agentstate-mcp` program: parse the flags, run the server until the
 * client goes away or a signal arrives, and exit with 0 (stopped), 1
 * (failed) or 2 (bad usage). Logs go to stderr only.
 */
import { parseMcpArgs, USAGE } from './args.js';
import { checkHttpOptions } from './transports/http.js';
import { runMcpServer } from './run.js';
import { UsageError } from './usage-error.js';
import { PACKAGE_VERSION } from './version.js';

/** Runs the program with `argv` (without the node and script paths); resolves to the exit code. */
export async function mcpMain(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const command = parseMcpArgs(argv, env);
    if (command.kind === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (command.kind === 'version') {
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    }
    if (command.options.http) checkHttpOptions(command.options.http);
    const server = await runMcpServer(command.options);
    const onSignal = (): void => void server.close();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    await server.closed;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`agentstate-mcp: ${error.message}\n(see agentstate-mcp --help)`);
      return 2;
    }
    console.error('agentstate-mcp:', error instanceof Error ? error.message : error);
    return 1;
  }
}
