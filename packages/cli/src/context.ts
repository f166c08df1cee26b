/** What every command reads from the global flags: the database path and the output mode. */
import type { Command } from 'commander';
import { resolveDatabasePath } from '@agentstate/sqlite';

/** The global flags, resolved. */
export interface Context {
  /** Absolute path of the database. */
  dbPath: string;
  /** Print JSON for scripts instead of tables. */
  json: boolean;
}

/** Resolves the global flags of `command` (given anywhere on the command line). */
export function contextOf(command: Command): Context {
  const opts = command.optsWithGlobals<{ db?: string; json?: boolean }>();
  return { dbPath: resolveDatabasePath(opts.db), json: opts.json === true };
}

/** Adds the scope flags to a command, and what the scope means there to its help. */
export function withScopeFlags(command: Command, meaning: string): Command {
  return command
    .option('--instance <name>', 'instance level of the scope')
    .option('--project <name>', 'project level of the scope')
    .option('--workspace <name>', 'workspace level of the scope')
    .addHelpText('after', `\nScope: ${meaning}. A level left out is empty; no level at all is the global scope.`);
}
