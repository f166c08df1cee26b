/** `agentstate namespaces`: the distinct scopes that hold live records. */
import type { Command } from 'commander';
import { describeScope, namespacesOptionsSchema, parseInput } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { withReader } from '../database.js';
import { CliCommand, show } from '../context.js';
import { nonNegativeInt, scopeFrom } from '../parse.js';

/** The `namespaces` command. */
export function namespacesCommand(): Command {
  return new CliCommand('namespaces')
    .flags('at')
    .description(SUMMARIES.namespaces)
    .option('--prefix <path>', 'only scopes under this one, itself included (labels separated by /, a JSON array, or / for global)')
    .option('--depth <n>', 'cut each scope to this many labels', nonNegativeInt)
    .flags('limit', 'cursor')
    .run(async (ctx, opts: { prefix?: string; depth?: number; limit?: number; cursor?: string; at?: string }) => {
      const options = parseInput(namespacesOptionsSchema, {
        prefix: scopeFrom({ scope: opts.prefix }, '--prefix'),
        maxDepth: opts.depth,
        limit: opts.limit,
        cursor: opts.cursor,
      });
      const scopes = await withReader(ctx.dbPath, opts.at, {}, (db) => db.namespaces(options));
      show(ctx, scopes, scopes.length === 0 ? '(no scopes)' : scopes.map(describeScope).join('\n'));
    });
}
