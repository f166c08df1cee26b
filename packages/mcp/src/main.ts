/**
 * The `agentstate-mcp` program: parse the flags, run the server until the
 * client goes away or a signal arrives, and exit with the codes of the
 * `agentstate` command (`ExitCode` of `@agentstate/open`): 0 stopped, 1 bad usage or
 * another user error, 2 a damaged or foreign database, 3 the environment
 * refused. Logs go to stderr only.
 */
import { ExitCode, exitCodeOf } from '@agentstate/open';
import { PROGRAM_NAME, parseMcpArgs, usage } from './args.js';
import { checkHttpOptions } from './transports/http.js';
import { runMcpServer } from './run.js';
import { UsageError } from './usage-error.js';
import { PACKAGE_VERSION } from './version.js';

/**
 * Runs the program with `argv` (without the node and script paths) and
 * resolves to the exit code. `name` is what help and messages call the
 * program: `agentstate mcp` when the `agentstate` command hands over.
 */
export async function mcpMain(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, name: string = PROGRAM_NAME): Promise<number> {
  try {
    const command = parseMcpArgs(argv, env);
    if (command.kind === 'help') {
      process.stdout.write(usage(name));
      return ExitCode.ok;
    }
    if (command.kind === 'version') {
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return ExitCode.ok;
    }
    if (command.options.http) checkHttpOptions(command.options.http);
    const server = await runMcpServer({ ...command.options, log: (line) => console.error(`${name}: ${line}`) });
    const onSignal = (): void => void server.close();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    await server.closed;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${name}: ${error.message}\n(see ${name} --help)`);
      return ExitCode.user;
    }
    console.error(`${name}:`, error instanceof Error ? error.message : error);
    return exitCodeOf(error);
  }
}
