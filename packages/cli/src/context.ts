/** What every command reads from the global flags: the database path and the output mode. */
import type { Command } from 'commander';
import { resolveDbPath } from './database.js';

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
  return { dbPath: resolveDbPath(opts.db), json: opts.json === true };
}

/** Adds the scope flags to a command. */
export function withScopeFlags(command: Command, what: string): Command {
  return command
    .option('--instance <name>', `${what}: instance level of the scope`)
    .option('--project <name>', `${what}: project level of the scope`)
    .option('--workspace <name>', `${what}: workspace level of the scope`);
}
