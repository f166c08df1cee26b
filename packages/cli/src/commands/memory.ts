/** `agentstate memory`: write (with key, metadata, expiry), update, list, recall (lexical, semantic or hybrid, with scores and metadata filters), show, sweep, delete, working. */
import type { Command } from 'commander';
import type { MemoryItem, Page, RecallHit, RecallMode, RecallOptions } from '@agentstate/core';
import {
  RECALL_MODES,
  RECALL_ORDERS,
  defaultRecallMode,
  describeScope,
  recallOptionsSchema,
  updateMemoryInputSchema,
  writeMemoryInputSchema,
  parseInput,
} from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { historyCommand } from './history.js';
import { CliCommand, show, sub, withReadScope, withScopeFlags } from '../context.js';
import { UserError } from '../errors.js';
import { withDatabase, withReader } from '../database.js';
import type { Column } from '../output.js';
import { print, printFields, printTable, shortTime } from '../output.js';
import type { OperationFlags, ScopeFlags, ScopeReadFlags } from '../parse.js';
import { collect, nonNegativeInt, oneOf, parseJsonObject, positiveInt, scopeFrom, scopeRead, textFromFlags, unitInterval } from '../parse.js';

/** `none` clears a key or an expiry; anything else is the value. */
const orNone = (value: string | undefined): string | null | undefined => (value === 'none' ? null : value);

/** The flags that write the fields of an item beyond its content. */
interface ItemFlags {
  kind?: string;
  source?: string;
  key?: string;
  meta?: string;
  expires?: string;
}

/** The input fields the flags give: `--meta` and `--expires` under their fields' names, the other flags as they are. */
function itemFields<F extends ItemFlags>({ key, meta, expires, ...fields }: F) {
  return { ...fields, key: orNone(key), metadata: meta === undefined ? undefined : parseJsonObject(meta, '--meta'), expiresAt: orNone(expires) };
}

export const hitColumns: Column<RecallHit>[] = [
  { header: 'score', cell: (h) => h.score.toFixed(3), align: 'right' },
  { header: 'kind', cell: (h) => h.kind, max: 16 },
  { header: 'created', cell: (h) => shortTime(h.createdAt) },
  { header: 'content', cell: (h) => h.content, max: 72 },
  { header: 'id', cell: (h) => h.id },
];

/** The columns of a listing: a recall without a query has no score to show. */
const itemColumns: Column<RecallHit>[] = hitColumns.filter((c) => c.header !== 'score');

function printItem(item: MemoryItem): void {
  printFields([
    ['id', item.id],
    ['kind', item.kind || '(none)'],
    ['scope', describeScope(item.scope)],
    ['source', item.source || '(none)'],
    ['key', item.key ?? '(none)'],
    ['metadata', JSON.stringify(item.metadata)],
    ['expires', item.expiresAt === null ? '(never)' : shortTime(item.expiresAt)],
    ['created', shortTime(item.createdAt)],
    ['updated', shortTime(item.updatedAt)],
  ]);
  print();
  print(item.content);
}

/** Flags of `memory working`. */
type WorkingFlags = ScopeFlags &
  OperationFlags & {
    at?: string;
    set?: string;
    file?: string;
    append?: string;
    find?: string;
    replace?: string;
    expectedVersion?: number;
    maxTokens?: number;
  };

/** Flags of `memory recall` and `list`: the options they give as they are, and the others. */
type RecallFlags = ScopeReadFlags &
  Pick<RecallOptions, 'mode' | 'order' | 'limit' | 'minScore' | 'match' | 'cursor'> & { kind?: string[]; where?: string; at?: string };

/**
 * Recall through the CLI, with the defaults of the library and the MCP
 * server (docs/contract.md §4): with query text, the default embedder makes
 * it hybrid and best first; without, it lists newest first. The embedder is
 * only created when the recall may embed, so a listing never loads it.
 */
export async function recallWith(dbPath: string, query: string | undefined, flags: RecallFlags): Promise<{ mode: RecallMode; hits: Page<RecallHit> }> {
  const { scope, parents, descendants, kind, where, at, ...rest } = flags;
  const options: RecallOptions = {
    query,
    ...scopeRead({ scope, parents, descendants }),
    kinds: kind,
    where: where === undefined ? undefined : (parseJsonObject(where, '--where') as RecallOptions['where']),
    ...rest,
  };
  parseInput(recallOptionsSchema, options);
  const wantsVectors = flags.mode === undefined ? Boolean(query?.trim()) : flags.mode !== 'lexical';
  const embedder = wantsVectors ? 'static' : 'none';
  const mode = flags.mode ?? defaultRecallMode(wantsVectors);
  const hits = await withReader(dbPath, at, { embedder }, (db) => db.memory.recall(options));
  return { mode, hits };
}

/** The `memory` command group. */
export function memoryCommand(): Command {
  const group = new CliCommand('memory').description(SUMMARIES.memory);

  withScopeFlags(sub(group, 'write', 'operationId'), 'the fact belongs to this scope (default: global)')
    .description('write a fact; the content is an argument, or --file (- for stdin)')
    .argument('[content]', 'the fact')
    .option('--file <path>', 'read the content from a file, or - for stdin')
    .option('--kind <kind>', 'what sort of fact (preference, fact, decision…)')
    .option('--source <source>', 'where it came from')
    .option('--key <key>', 'the slot it fills in its scope: writing a held key again updates that fact')
    .option('--meta <json>', 'metadata, a JSON object')
    .option('--expires <instant>', 'an ISO-8601 date-time from which the fact is no longer read')
    .run(async (ctx, inline: string | undefined, { file, ...opts }: ScopeFlags & OperationFlags & ItemFlags & { file?: string }) => {
      const content = await textFromFlags(inline, file, 'memory content');
      const input = parseInput(writeMemoryInputSchema, { ...itemFields(opts), content, scope: scopeFrom(opts) });
      const item = await withDatabase(ctx.dbPath, { create: true }, (db) => db.memory.write(input));
      show(ctx, item, item.id);
    });

  withReadScope(sub(group, 'recall', 'at'), 'facts', true)
    .description('recall live facts matching the query, with scores')
    .argument('[query]', 'what to look for (empty: everything)')
    .option('--mode <mode>', `${RECALL_MODES.join(', ')} (default: hybrid with a query, with the offline embedder; else lexical)`, oneOf(RECALL_MODES))
    .option('--order <order>', `${RECALL_ORDERS.join(', ')} (default: relevance for semantic or hybrid recall with a query, else recent)`, oneOf(RECALL_ORDERS))
    .option('--limit <n>', 'at most this many hits (default: 20)', positiveInt)
    .option('--kind <kind>', 'only this kind (repeat for several)', collect)
    .option('--min-score <x>', 'only hits scoring at least this (0…1, default 0: no cut)', unitInterval)
    .option('--where <json>', 'metadata filter, e.g. \'{"tag":{"$in":["a","b"]},"n":{"$gt":2}}\'')
    .flags('match', 'cursor')
    .run(async (ctx, query: string | undefined, opts: RecallFlags) => {
      const { mode, hits } = await recallWith(ctx.dbPath, query, opts);
      show(ctx, hits, () => {
        printTable(hitColumns, hits, '(nothing recalled)');
        if (hits.length > 0) print(`(${hits.length} ${hits.length === 1 ? 'hit' : 'hits'}, ${mode} recall)`);
      });
    });

  withReadScope(sub(group, 'list', 'at'), 'facts')
    .description('list live facts, newest first (a recall without a query)')
    .option('--kind <kind>', 'only this kind (repeat for several)', collect)
    .option('--limit <n>', 'at most this many (default: 20)', positiveInt)
    .option('--where <json>', 'metadata filter, as for recall')
    .flags('cursor')
    .run(async (ctx, opts: RecallFlags) => {
      const { hits } = await recallWith(ctx.dbPath, undefined, opts);
      show(ctx, hits, () => printTable(itemColumns, hits, '(no memory)'));
    });

  sub(group, 'show', 'at')
    .description('show one fact')
    .argument('<id>', 'memory item id')
    .run(async (ctx, id: string, opts: { at?: string }) => {
      const item = await withReader(ctx.dbPath, opts.at, {}, (db) => db.memory.get(id));
      show(ctx, item, printItem);
    });

  sub(group, 'update', 'operationId')
    .description('change a fact: only the given fields change (--key none, --expires none clear them)')
    .argument('<id>', 'memory item id')
    .option('--content <text>', 'the new content')
    .option('--kind <kind>', 'the new kind')
    .option('--source <source>', 'the new source')
    .option('--key <key>', 'the new key, or none')
    .option('--meta <json>', 'the new metadata, a JSON object (replaces the old)')
    .option('--expires <instant>', 'the new expiry, or none')
    .option('--sync-version <n>', 'only if the fact is still at this syncVersion', nonNegativeInt)
    .run(async (ctx, id: string, opts: OperationFlags & ItemFlags & { content?: string; syncVersion?: number }) => {
      const patch = parseInput(updateMemoryInputSchema, itemFields(opts));
      const item = await withDatabase(ctx.dbPath, {}, (db) => db.memory.update(id, patch));
      show(ctx, item, `updated memory item ${item.id} (syncVersion ${item.syncVersion})`);
    });

  sub(group, 'sweep')
    .description(
      'tombstone every fact past its own expiry (set by --expires), one tombstone each; records that a retention policy expires are swept by `retention apply`',
    )
    .run(async (ctx) => {
      const swept = await withDatabase(ctx.dbPath, {}, (db) => db.memory.sweep());
      show(ctx, { swept }, `swept ${swept} expired memory ${swept === 1 ? 'item' : 'items'}`);
    });

  sub(group, 'delete', 'operationId')
    .description('delete a fact (a tombstone stays in the log)')
    .argument('<id>', 'memory item id')
    .run(async (ctx, id: string, opts: OperationFlags) => {
      const item = await withDatabase(ctx.dbPath, {}, (db) => db.memory.delete(id, opts));
      show(ctx, item, `deleted memory item ${item.id}`);
    });

  withScopeFlags(sub(group, 'working', 'at', 'operationId'), 'the working memory of exactly this scope (default: global)')
    .description(
      "show the scope's working memory, a pinned document, or change it: --set (or --file) replaces it, --append adds a line, --find with --replace edits it",
    )
    .option('--set <text>', 'replace the whole document with this text')
    .option('--file <path>', 'replace the whole document with a file, or - for stdin')
    .option('--append <text>', 'add this text at the end, on a line of its own')
    .option('--find <text>', 'text the document holds exactly once, replaced by --replace')
    .option('--replace <text>', 'what --find becomes')
    .option('--expected-version <n>', 'only if the document is still at this syncVersion (0: there is none yet)', nonNegativeInt)
    .option('--max-tokens <n>', 'the token limit (default: 2000 o200k_base tokens)', positiveInt)
    .run(async (ctx, opts: WorkingFlags) => {
      const { set, file, append, find, replace, expectedVersion, maxTokens, at, operationId } = opts;
      const scope = scopeFrom(opts);
      const replaces = set !== undefined || file !== undefined;
      if (!replaces && append === undefined && find === undefined && replace === undefined) {
        if (expectedVersion !== undefined || maxTokens !== undefined || operationId !== undefined)
          throw new UserError('--expected-version, --max-tokens and --operation-id only go with a change');
        const item = await withReader(ctx.dbPath, at, {}, (db) => db.workingMemory.get({ scope }));
        show(ctx, item, () => (item === null ? print('(no working memory)') : printItem(item)));
        return;
      }
      if (at !== undefined) throw new UserError('--at reads an earlier state, which cannot be changed');
      const common = { scope, expectedVersion, maxTokens, operationId };
      const item = await withDatabase(ctx.dbPath, { create: true }, async (db) =>
        replaces && append === undefined && find === undefined && replace === undefined
          ? db.workingMemory.replace({ ...common, text: await textFromFlags(set, file, 'working memory') })
          : db.workingMemory.patch({ ...common, append, find, replace, ...(replaces ? { text: set ?? file } : {}) }),
      );
      show(ctx, item, `working memory ${describeScope(item.scope)} at syncVersion ${item.syncVersion}`);
    });

  group.addCommand(historyCommand('memory item', ['memory']));

  return group;
}
