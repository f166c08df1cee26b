/** What every command reads from the global flags (the database path and the output mode), how it answers, and the flags several commands share. */
import { Command } from 'commander';
import { TOKEN_MATCHES } from '@agentstate/core';
import { resolveTarget } from '@agentstate/open';
import { io } from './io.js';
import { print, printJson, printNextCursor } from './output.js';
import { oneOf, positiveInt } from './parse.js';

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
export function withScopeFlags<C extends Command>(command: C, meaning: string): C {
  return command
    .option('--scope <path>', 'the scope: labels separated by / (a/b/c), a JSON array of labels, or / for global')
    .addHelpText('after', `\nScope: ${meaning}. --scope web/api is the path ["web","api"].`);
}

/** Adds the scope flags to a read of `what` that may reach past the scope: `--descendants` and, with `parents`, `--parents`. */
export function withReadScope(command: CliCommand, what: string, parents = false): CliCommand {
  const past = `with ${parents ? '--parents, also its parent scopes; with ' : ''}--descendants, also the scopes below it`;
  const flags: SharedFlag[] = parents ? ['parents', 'descendants'] : ['descendants'];
  return withScopeFlags(command, `only ${what} in exactly this scope (${past}); default: every scope`).flags(...flags);
}

/** Flags several commands take, each with one help text everywhere; `--at` is docs/contract.md §11, `--operation-id` §4. */
const FLAGS = {
  at: ['--at <point>', 'read the state as it was at this seq of the log, or at this ISO-8601 instant (the last event at or before it)'],
  operationId: ['--operation-id <id>', 'make the write idempotent: run again with this id and the same input, it prints the first result and writes nothing'],
  descendants: ['--descendants', 'with a scope: include the scopes below it'],
  parents: ['--parents', 'with a scope: include its parent scopes'],
  match: ['--match <how>', 'lexical matching: every query token (all) or any, ranked by BM25', oneOf(TOKEN_MATCHES)],
  limit: ['--limit <n>', 'at most this many (default: all)', positiveInt],
  cursor: ['--cursor <cursor>', 'resume after the page that printed this cursor (same other options)'],
} satisfies Record<string, [string, string, ((value: string) => unknown)?]>;

/** The name of a flag several commands take. */
export type SharedFlag = keyof typeof FLAGS;

/** A command whose action gets the run's {@link Context}, and whose subcommands are such commands too. */
export class CliCommand extends Command {
  override createCommand(name?: string): CliCommand {
    return new CliCommand(name);
  }

  /** Adds the shared flags `names` (see `FLAGS`). */
  flags(...names: SharedFlag[]): this {
    for (const name of names) {
      const [flags, help, parse]: readonly [string, string, ((value: string) => unknown)?] = FLAGS[name];
      if (parse === undefined) this.option(flags, help);
      else this.option(flags, help, parse);
    }
    return this;
  }

  /** Sets the action: `body` gets the run's context, then the arguments and options (commander passes the command last). */
  run<A extends unknown[]>(body: (ctx: Context, ...args: A) => Promise<unknown>): this {
    return this.action(async (...args: unknown[]) => {
      await body(contextOf(args.pop() as Command), ...(args as A));
    });
  }
}

/** Subcommand `name` of `group`, with the shared flags `flags`. */
export function sub(group: CliCommand, name: string, ...flags: SharedFlag[]): CliCommand {
  return group.command(name).flags(...flags);
}
