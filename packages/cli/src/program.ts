/**
 * The `agentstate` command tree. Every command takes the global `--db` and
 * `--json` flags, anywhere on the line. Errors are not printed or acted on
 * here: they propagate to {@link run}, which maps them to exit codes.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { DATABASE_ENV, DEFAULT_DATABASE_PATH } from '@agentstate/sqlite';
import { describeError, exitCodeFor } from './errors.js';
import { demoCommand } from './commands/demo.js';
import { logCommand } from './commands/log.js';
import { maintenanceCommands } from './commands/maintenance.js';
import { mcpArguments, mcpCommand, runMcp } from './commands/mcp.js';
import { memoryCommand } from './commands/memory.js';
import { sessionsCommand } from './commands/sessions.js';
import { skillsCommand } from './commands/skills.js';
import { transferCommands } from './commands/transfer.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Commander's own help and version output end a run successfully, or with 1 for bare `agentstate`. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

function configure(command: Command): void {
  command.exitOverride();
  // Errors are reported once, in one line, by run().
  command.configureOutput({ outputError: () => undefined });
  for (const sub of command.commands) configure(sub);
}

/** Builds the command tree. */
export function createProgram(): Command {
  const program = new Command('agentstate')
    .description("Inspect, search, verify, export and import an agent's state: sessions, skills and memory.")
    .version(version(), '-V, --version')
    .option('--db <path>', `the database file (default: $${DATABASE_ENV}, else ${DEFAULT_DATABASE_PATH})`)
    .option('--json', 'print JSON for scripts instead of tables')
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 a user error (bad flags or input, not found, conflict), 2 a corrupted or foreign database, 3 the environment refused (disk full, read-only, permission denied, not a file).\nStart with: agentstate demo',
    );
  program.addCommand(sessionsCommand());
  program.addCommand(skillsCommand());
  program.addCommand(memoryCommand());
  program.addCommand(logCommand());
  for (const c of maintenanceCommands()) program.addCommand(c);
  for (const c of transferCommands()) program.addCommand(c);
  program.addCommand(demoCommand());
  program.addCommand(mcpCommand());
  configure(program);
  return program;
}

/** Runs the command line `argv` (as in `process.argv`) and returns the exit code. */
export async function run(argv: readonly string[] = process.argv): Promise<number> {
  const mcp = mcpArguments(argv.slice(2));
  if (mcp) return runMcp(mcp);
  try {
    await createProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError && HELP_CODES.has(error.code)) return error.exitCode;
    process.stderr.write(`agentstate: ${describeError(error)}\n`);
    return exitCodeFor(error);
  }
}
