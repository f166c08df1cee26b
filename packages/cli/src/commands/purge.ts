/** `agentstate purge`: erase a record, a namespace or every text match for good (docs/contract.md §7, "Purge"). */
import type { Command } from 'commander';
import type { PurgeInput } from '@agentstate/core';
import type { PostgresCompactResult } from '@agentstate/postgres';
import { isPostgresUrl } from '@agentstate/postgres/url';
import { SUMMARIES } from '../command-list.js';
import { CliCommand } from '../context.js';
import { withDatabase } from '../database.js';
import { UserError } from '../errors.js';
import { print, printJson } from '../output.js';
import { scopeFrom } from '../parse.js';

interface PurgeFlags {
  namespace?: string;
  matching?: string;
  reason?: string;
  yes?: boolean;
  compact?: boolean;
}

/** What `--compact` did, and what the server still keeps. */
function printCompaction(compact: PostgresCompactResult): void {
  print(`compacted ${compact.tables.length} tables${compact.walSwitched ? ', WAL switched past them' : ''}`);
  if (compact.skipped.length > 0) print(`not owned by this role, left for their owner: ${compact.skipped.join(', ')}`);
  for (const step of compact.remaining) print(`still to do: ${step}`);
}

/** The `purge` command. */
export function purgeCommand(): Command {
  return new CliCommand('purge')
    .description(SUMMARIES.purge)
    .argument('[id]', 'a session (with its turns), turn, skill or memory item id')
    .option('--namespace <scope>', 'every session, skill and memory item of this scope and the scopes below it (labels separated by /)')
    .option(
      '--matching <text>',
      'every record holding this text (case-sensitive) in any field a purge erases: text, tool inputs and results, metadata, titles, skill names and bodies, memory keys (a session goes with its turns)',
    )
    .option('--reason <reason>', 'why (recorded in the log; never put the erased text here)')
    .option('--yes', 'confirm: the text cannot be brought back')
    .option(
      '--compact',
      "PostgreSQL: then rewrite the schema's tables (VACUUM FULL, each locked meanwhile) and move the WAL on, so the erased text leaves the server's files",
    )
    .run(async (ctx, id: string | undefined, opts: PurgeFlags) => {
      const given = [id, opts.namespace, opts.matching].filter((v) => v !== undefined).length;
      if (given !== 1) throw new UserError('give exactly one of <id>, --namespace or --matching');
      if (opts.reason === undefined) throw new UserError('give --reason: it is recorded with the purge');
      if (!opts.yes) throw new UserError('purge erases for good (backups and exports made before keep what they hold): add --yes to confirm');
      const postgres = isPostgresUrl(ctx.dbPath);
      if (opts.compact && !postgres) throw new UserError('--compact is for PostgreSQL: a SQLite purge zeroes the freed pages and empties its -wal by itself');
      const input: PurgeInput =
        id !== undefined
          ? { id, reason: opts.reason }
          : opts.namespace !== undefined
            ? { namespace: scopeFrom({ scope: opts.namespace }, '--namespace') ?? [], reason: opts.reason }
            : { matching: opts.matching!, reason: opts.reason };
      const { result, compact } = await withDatabase(ctx.dbPath, {}, async (db) => {
        const purged = await db.purge(input);
        return { result: purged, compact: opts.compact && 'schema' in db ? await db.compact() : undefined };
      });
      const steps = postgres ? (await import('@agentstate/postgres')).POSTGRES_ERASURE_STEPS : undefined;
      if (ctx.json) printJson({ ...result, ...(compact === undefined ? {} : { compact }), ...(steps === undefined ? {} : { erasureSteps: steps }) });
      else {
        if (result.seq === 0) print('nothing matched: nothing purged');
        else {
          const counts = (['sessions', 'turns', 'skills', 'memory'] as const).map((k) => `${result[k].length} ${k === 'memory' ? 'memory items' : k}`);
          print(`purged ${counts.join(', ')} (event ${result.seq})`);
        }
        if (compact) printCompaction(compact);
        if (steps) {
          print('On PostgreSQL the erased text stays in the server files until these steps are taken:');
          for (const [i, step] of steps.entries()) print(`  ${i + 1}. ${step}`);
        }
      }
    });
}
