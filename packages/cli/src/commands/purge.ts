/** `agentstate purge`: erase a record, a namespace or every text match for good (docs/contract.md §7, "Purge"). */
import { Command } from 'commander';
import type { PurgeInput } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { contextOf } from '../context.js';
import { withDatabase } from '../database.js';
import { UserError } from '../errors.js';
import { print, printJson } from '../output.js';
import { scopeFrom } from '../parse.js';

interface PurgeFlags {
  namespace?: string;
  matching?: string;
  reason?: string;
  yes?: boolean;
}

/** The `purge` command. */
export function purgeCommand(): Command {
  return new Command('purge')
    .description(SUMMARIES.purge)
    .argument('[id]', 'a session (with its turns), turn, skill or memory item id')
    .option('--namespace <scope>', 'every session, skill and memory item of this scope and the scopes below it (labels separated by /)')
    .option(
      '--matching <text>',
      'every record holding this text (case-sensitive) in any field a purge erases: text, tool inputs and results, metadata, titles, skill names and bodies, memory keys (a session goes with its turns)',
    )
    .option('--reason <reason>', 'why (recorded in the log; never put the erased text here)')
    .option('--yes', 'confirm: the text cannot be brought back')
    .action(async (id: string | undefined, opts: PurgeFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const given = [id, opts.namespace, opts.matching].filter((v) => v !== undefined).length;
      if (given !== 1) throw new UserError('give exactly one of <id>, --namespace or --matching');
      if (opts.reason === undefined) throw new UserError('give --reason: it is recorded with the purge');
      if (!opts.yes) throw new UserError('purge erases for good (backups and exports made before keep what they hold): add --yes to confirm');
      const input: PurgeInput =
        id !== undefined
          ? { id, reason: opts.reason }
          : opts.namespace !== undefined
            ? { namespace: scopeFrom({ scope: opts.namespace }, '--namespace') ?? [], reason: opts.reason }
            : { matching: opts.matching!, reason: opts.reason };
      const result = await withDatabase(ctx.dbPath, {}, (db) => db.purge(input));
      if (ctx.json) printJson(result);
      else if (result.seq === 0) print('nothing matched: nothing purged');
      else {
        const counts = (['sessions', 'turns', 'skills', 'memory'] as const).map((k) => `${result[k].length} ${k === 'memory' ? 'memory items' : k}`);
        print(`purged ${counts.join(', ')} (event ${result.seq})`);
      }
    });
}
