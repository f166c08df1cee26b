/**
 * The `agentstate` command tree. Every command takes the global `--db` and
 * `--json` flags (and `--local-time`), anywhere on the line. Errors are not printed or acted on
 * here: they propagate to {@link run}, which maps them to exit codes.
 *
 * Building the tree loads nothing heavy: each command's module (and with it
 * core, the SQLite backend, the embedder or the MCP server) is loaded when
 * that command runs, so `--version`, `--help` and a lexical recall start fast.
 */
import { type Command, CommanderError } from 'commander';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH } from '@agentstate/open/defaults';
import { LAZY_COMMANDS } from './command-list.js';
import { type Io, io, processIo, runState, withRun } from './io.js';
import { LazyProgram, subcommandTerm } from './lazy-command.js';
import { mcpArguments, mcpCommand, runMcp } from './commands/mcp.js';
import { version } from './version.js';

/** Commander's own help and version output end a run successfully, or with 1 for bare `agentstate`. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

function configure(command: Command): void {
  command.exitOverride();
  // Every command's help lists --db and the other global flags: how to choose the database is never one help away.
  command.configureHelp({ ...command.configureHelp(), showGlobalOptions: true });
  // Errors are reported once, in one line, by run(); help and the version go to the run's streams.
  command.configureOutput({
    outputError: () => undefined,
    writeOut: (text) => io().stdout.write(text),
    writeErr: (text) => io().stderr.write(text),
    getOutHelpWidth: () => columnsOf(io().stdout),
    getErrHelpWidth: () => columnsOf(io().stderr),
  });
  for (const sub of command.commands) configure(sub);
}

/** The width help is wrapped to on `stream`: a terminal's, else commander's default of 80. */
function columnsOf(stream: Io['stdout']): number {
  const tty = stream as Io['stdout'] & { isTTY?: boolean; columns?: number };
  return (tty.isTTY && tty.columns) || 80;
}

/** Builds the command tree. */
export function createProgram(): Command {
  const program = new LazyProgram('agentstate')
    .description("Inspect, search, verify, export and import an agent's state: sessions, skills and memory.")
    .version(version(), '-V, --version')
    .option('--db <path>', `the database file, or a postgres:// URL (default: $${DATABASE_ENV}, else ${DEFAULT_DATABASE_PATH})`)
    .option('--json', 'print JSON for scripts instead of tables')
    .option('--local-time', 'print times in the local zone ($TZ, else the system zone) with their offset, instead of UTC (marked Z)')
    // Set in the run's state, not through the table printer, whose terminal-width tables --help and
    // `agentstate mcp` never need. JSON keeps its ISO instants either way.
    .hook('preAction', (_program, action) => {
      runState().localTime = action.optsWithGlobals<{ localTime?: boolean }>().localTime === true;
    })
    .configureHelp({ subcommandTerm })
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 a user error (bad flags or input, not found, conflict), 2 a corrupted or foreign database, 3 the environment refused (disk full, read-only, permission denied, not a file), 128 + n stopped by signal n (130: Ctrl-C).\nStart with: agentstate demo',
    );
  for (const entry of LAZY_COMMANDS) program.addLazyCommand(entry, configure);
  program.addCommand(mcpCommand());
  configure(program);
  return program;
}

/**
 * Runs the command line `argv` (as in `process.argv`) with the streams,
 * environment and working directory of `runIo`, and returns the exit code.
 * It leaves nothing behind: the databases it opened are closed and
 * `process.exitCode` is the caller's to set.
 */
export async function run(argv: readonly string[], runIo: Io = processIo()): Promise<number> {
  return withRun(runIo, async () => {
    const mcp = mcpArguments(argv.slice(2));
    if (mcp) return runMcp(mcp);
    try {
      await createProgram().parseAsync([...argv]);
      return 0;
    } catch (error) {
      if (error instanceof CommanderError && HELP_CODES.has(error.code)) return error.exitCode;
      // Loaded only on failure: mapping errors to codes needs the classes of core and the backend.
      const { describeError, exitCodeFor } = await import('./errors.js');
      runIo.stderr.write(`agentstate: ${describeError(error)}\n`);
      return exitCodeFor(error);
    }
  });
}
