/** What every command reads from the global flags: the database path and the output mode. */
import type { Command } from 'commander';
import { resolveTarget } from '@agentstate/open';
import { io } from './io.js';
import { print, printJson, printNextCursor } from './output.js';

/** The global flags, resolved. */
export interface Context {
  /** Absolute path of the database file, or a `postgres://` URL. */
  dbPath: string;
  /** Print JSON for scripts instead of tables. */
  json: boolean;
}

/** Resolves the global flags of `command` (given anywhere on the command line). */
export function contextOf(command: Command): Context {
  const opts = command.optsWithGlobals<{ db?: string; json?: boolean }>();
  const { env, cwd } = io();
  return { dbPath: resolveTarget(opts.db, env, cwd), json: opts.json === true };
}

/**
 * Prints what a command answers: as JSON with `--json`, else `human` (a
 * line, or what a function prints of it); for a page, then where the next one starts.
 */
export function show<T>(ctx: Context, value: T, human: string | ((value: T) => void)): void {
  if (ctx.json) printJson(value);
  else if (typeof human === 'string') print(human);
  else human(value);
  if (Array.isArray(value)) printNextCursor((value as { nextCursor?: string }).nextCursor, ctx.json);
}

/** Adds the scope flags to a command, and what the scope means there to its help. */
export function withScopeFlags(command: Command, meaning: string): Command {
  return command
    .option('--scope <path>', 'the scope: labels separated by / (a/b/c), a JSON array of labels, or / for global')
    .addHelpText('after', `\nScope: ${meaning}. --scope web/api is the path ["web","api"].`);
}
