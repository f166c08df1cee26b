/** `agentstate memory`: write, recall (lexical, semantic or hybrid, with scores), show, delete. */
import { Command } from 'commander';
import type { MemoryItem, RecallHit, RecallOptions } from '@agentstate/core';
import { RECALL_MODES, RECALL_ORDERS, parseInput, recallOptionsSchema, writeMemoryInputSchema } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { contextOf, withScopeFlags } from '../context.js';
import { withDatabase } from '../database.js';
import { offlineEmbedder } from '../embedder.js';
import { UserError } from '../errors.js';
import type { Column } from '../output.js';
import { print, printFields, printJson, printTable, shortTime } from '../output.js';
import type { ScopeFlags } from '../parse.js';
import { collect, oneOf, positiveInt, scopeFrom, textFromFlags, unitInterval } from '../parse.js';
import { scopeLabel } from './skills.js';

export const hitColumns: Column<RecallHit>[] = [
  { header: 'score', cell: (h) => h.score.toFixed(3), align: 'right' },
  { header: 'kind', cell: (h) => h.kind, max: 16 },
  { header: 'created', cell: (h) => shortTime(h.createdAt) },
  { header: 'content', cell: (h) => h.content, max: 72 },
  { header: 'id', cell: (h) => h.id },
];

function printItem(item: MemoryItem): void {
  printFields([
    ['id', item.id],
    ['kind', item.kind || '(none)'],
    ['scope', scopeLabel(item.scope)],
    ['source', item.source || '(none)'],
    ['created', item.createdAt],
  ]);
  print();
  print(item.content);
}

type Mode = (typeof RECALL_MODES)[number];

interface RecallFlags extends ScopeFlags {
  mode?: Mode;
  order?: (typeof RECALL_ORDERS)[number];
  limit?: number;
  kind?: string[];
  minScore?: number;
  match?: 'all' | 'any';
  parents?: boolean;
}

/**
 * Recall through the CLI: hybrid by default when the offline embedder is
 * there and there is a query; semantic and hybrid hits come best first
 * unless `--order` says otherwise.
 */
export async function recallWith(dbPath: string, query: string | undefined, flags: RecallFlags): Promise<{ mode: Mode; hits: RecallHit[] }> {
  const scope = scopeFrom(flags);
  const options: RecallOptions = {
    query,
    scope,
    includeParentScopes: scope ? flags.parents : undefined,
    kinds: flags.kind,
    limit: flags.limit,
    order: flags.order,
    minScore: flags.minScore,
    match: flags.match,
    mode: flags.mode,
  };
  parseInput(recallOptionsSchema, options);
  const wantsVectors = flags.mode === undefined ? Boolean(query?.trim()) : flags.mode !== 'lexical';
  const embedder = wantsVectors ? await offlineEmbedder() : undefined;
  if (flags.mode !== undefined && flags.mode !== 'lexical' && !embedder) {
    throw new UserError(`${flags.mode} recall needs the offline embedder of @agentstate/embeddings, which is not installed`);
  }
  const mode: Mode = flags.mode ?? (embedder ? 'hybrid' : 'lexical');
  const order = flags.order ?? (mode === 'lexical' ? 'recent' : 'relevance');
  const hits = await withDatabase(dbPath, { embedder, readonly: true }, (db) => db.memory.recall({ ...options, mode, order }));
  return { mode, hits };
}

/** The `memory` command group. */
export function memoryCommand(): Command {
  const group = new Command('memory').description(SUMMARIES.memory);

  withScopeFlags(group.command('write'), 'the fact belongs to this scope (default: global)')
    .description('write a fact; the content is an argument, or --file (- for stdin)')
    .argument('[content]', 'the fact')
    .option('--file <path>', 'read the content from a file, or - for stdin')
    .option('--kind <kind>', 'what sort of fact (preference, fact, decision…)')
    .option('--source <source>', 'where it came from')
    .action(async (inline: string | undefined, opts: ScopeFlags & { file?: string; kind?: string; source?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const input = parseInput(writeMemoryInputSchema, {
        content: textFromFlags(inline, opts.file, 'memory content'),
        kind: opts.kind,
        source: opts.source,
        scope: scopeFrom(opts),
      });
      const item = await withDatabase(ctx.dbPath, { create: true }, (db) => db.memory.write(input));
      if (ctx.json) printJson(item);
      else print(item.id);
    });

  withScopeFlags(group.command('recall'), 'only facts in exactly this scope (with --parents, also its parent scopes, most specific first); default: every scope')
    .description('recall live facts matching the query, with scores')
    .argument('[query]', 'what to look for (empty: everything)')
    .option('--mode <mode>', `${RECALL_MODES.join(', ')} (default: hybrid when the offline embedder is installed and a query is given)`, oneOf(RECALL_MODES))
    .option('--order <order>', `${RECALL_ORDERS.join(', ')} (default: recent for lexical recall, else relevance)`, oneOf(RECALL_ORDERS))
    .option('--limit <n>', 'at most this many hits (default: 20)', positiveInt)
    .option('--kind <kind>', 'only this kind (repeat for several)', collect)
    .option('--min-score <x>', 'only hits scoring at least this (0…1)', unitInterval)
    .option('--match <match>', 'lexical matching: every query token (all) or any, ranked by BM25', oneOf(['all', 'any'] as const))
    .option('--parents', 'with a scope: include its parent scopes')
    .action(async (query: string | undefined, opts: RecallFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const { mode, hits } = await recallWith(ctx.dbPath, query, opts);
      if (ctx.json) printJson(hits);
      else {
        printTable(hitColumns, hits, '(nothing recalled)');
        if (!ctx.json && hits.length > 0) print(`(${hits.length} ${hits.length === 1 ? 'hit' : 'hits'}, ${mode} recall)`);
      }
    });

  group
    .command('show')
    .description('show one fact')
    .argument('<id>', 'memory item id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const item = await withDatabase(ctx.dbPath, { readonly: true }, (db) => db.memory.get(id));
      if (ctx.json) printJson(item);
      else printItem(item);
    });

  group
    .command('delete')
    .description('delete a fact (a tombstone stays in the log)')
    .argument('<id>', 'memory item id')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const item = await withDatabase(ctx.dbPath, {}, (db) => db.memory.delete(id));
      if (ctx.json) printJson(item);
      else print(`deleted memory item ${item.id}`);
    });

  return group;
}
