/**
 * The `agentstate-mcp` program: parse the flags, run the server until the
 * client goes away or a signal arrives, and exit with the codes of the
 * `agentstate` command (`ExitCode` of `@agentstate/open`): 0 stopped, 1 bad usage or
 * another user error, 2 a damaged or foreign database, 3 the environment
 * refused. Logs go to stderr only.
 */
import type { Writable } from 'node:stream';
import { ExitCode, exitCodeOf } from '@agentstate/open';
import { PROGRAM_NAME, parseMcpArgs, usage } from './args.js';
import { checkHttpOptions } from './transports/http.js';
import { runMcpServer } from './run.js';
import { UsageError } from './usage-error.js';
import { PACKAGE_VERSION } from './version.js';

/**
 * Where a run of {@link mcpMain} reads its settings and writes its help and
 * messages: the process's own by default; a host passes its run's, so runs
 * that share a process keep their output apart. The stdio transport itself
 * always speaks on the process's stdin and stdout.
 */
export interface McpIo {
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
}

/**
 * Runs the program with `argv` (without the node and script paths) and
 * resolves to the exit code. `name` is what help and messages call the
 * program: `agentstate mcp` when the `agentstate` command hands over.
 */
export async function mcpMain(
  argv: readonly string[],
  io: McpIo = { env: process.env, stdout: process.stdout, stderr: process.stderr },
  name: string = PROGRAM_NAME,
): Promise<number> {
  const say = (line: string): boolean => io.stderr.write(`${name}: ${line}\n`);
  try {
    const command = parseMcpArgs(argv, io.env);
    if (command.kind === 'help') {
      io.stdout.write(usage(name));
      return ExitCode.ok;
    }
    if (command.kind === 'version') {
      io.stdout.write(`${PACKAGE_VERSION}\n`);
      return ExitCode.ok;
    }
    if (command.options.http) checkHttpOptions(command.options.http);
    const server = await runMcpServer({ ...command.options, log: say });
    const onSignal = (): void => void server.close();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    await server.closed;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      say(`${error.message}\n(see ${name} --help)`);
      return ExitCode.user;
    }
    say(error instanceof Error ? error.message : String(error));
    return exitCodeOf(error);
  }
}
