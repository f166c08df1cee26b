/** `agentstate skills`: list by scope, show, search, upsert, record an outcome, delete. */
import type { Command } from 'commander';
import type { Skill, TokenMatch, UpsertSkillInput } from '@agentstate/core';
import { SKILL_SEARCH_ORDERS, describeScope, upsertSkillInputSchema, parseInput } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { historyCommand } from './history.js';
import { CliCommand, show, sub, withReadScope, withScopeFlags } from '../context.js';
import { withDatabase, withReader } from '../database.js';
import { UserError } from '../errors.js';
import type { Column } from '../output.js';
import { print, printFields, printTable, shortTime } from '../output.js';
import type { OperationFlags, ScopeFlags, ScopeReadFlags } from '../parse.js';
import { collect, nonNegativeInt, oneOf, parseJsonObject, readText, scopeFrom, scopeRead } from '../parse.js';

export const skillColumns: Column<Skill>[] = [
  { header: 'slug', cell: (s) => s.slug, max: 32 },
  { header: 'name', cell: (s) => s.name, max: 32 },
  { header: 'scope', cell: (s) => describeScope(s.scope), max: 32 },
  { header: 'ver', cell: (s) => s.version, align: 'right' },
  // What --sync-version expects: it counts every write (outcomes too), so it runs ahead of VER.
  { header: 'sync', cell: (s) => s.syncVersion, align: 'right' },
  { header: 'wins', cell: (s) => `${s.wins}/${s.uses}`, align: 'right' },
  { header: 'tags', cell: (s) => s.tags.join(','), max: 24 },
  { header: 'id', cell: (s) => s.id },
];

function printSkill(skill: Skill): void {
  printFields([
    ['slug', skill.slug],
    ['name', skill.name || '(none)'],
    ['id', skill.id],
    ['scope', describeScope(skill.scope)],
    ['version', skill.version],
    ['syncVersion', `${skill.syncVersion} (pass as --sync-version to update only this revision)`],
    ['outcomes', `${skill.wins} wins of ${skill.uses} uses`],
    ['tags', skill.tags.join(', ') || '(none)'],
    ['check', skill.check || '(none)'],
    ['updated', shortTime(skill.updatedAt)],
  ]);
  print();
  print(skill.body || '(empty body)');
}

/** Flags of `skills search`. */
interface SearchFlags extends ScopeReadFlags {
  limit?: number;
  order: (typeof SKILL_SEARCH_ORDERS)[number];
  match?: TokenMatch;
  cursor?: string;
  at?: string;
}

/** Flags of `skills upsert`: the input's fields they give as they are, and the others. */
type UpsertFlags = ScopeFlags &
  OperationFlags &
  Pick<UpsertSkillInput, 'name' | 'body' | 'check' | 'syncVersion'> & { file?: string; bodyFile?: string; tag?: string[] };

/** The upsert input: the file's JSON object, overridden by the flags. */
async function upsertInput(slug: string | undefined, { file, body, bodyFile, tag, scope, ...fields }: UpsertFlags): Promise<UpsertSkillInput> {
  const input: Record<string, unknown> = file === undefined ? {} : parseJsonObject(await readText(file), file === '-' ? 'stdin' : file);
  if (body !== undefined && bodyFile !== undefined) throw new UserError('give the body inline or from a file, not both');
  const given = { ...fields, slug, body: bodyFile === undefined ? body : await readText(bodyFile), tags: tag, scope: scopeFrom({ scope }) };
  // A flag given overrides the file's field; one left out keeps it.
  for (const [key, value] of Object.entries(given)) if (value !== undefined) input[key] = value;
  if (input.slug === undefined) throw new UserError('the skill needs a slug (an argument, or "slug" in --file)');
  return input as UpsertSkillInput;
}

/** What `--scope` means to a command that finds a skill by id or slug. */
const SLUG_IN_SCOPE =
  'a slug resolves to the most specific skill along this scope and its parents (default: the global skill only; a slug live only in other scopes is refused, naming them)';

/** The `skills` command group. */
export function skillsCommand(): Command {
  const group = new CliCommand('skills').description(SUMMARIES.skills);

  withScopeFlags(sub(group, 'list', 'at'), 'the skills listed are those in exactly this scope (default: global; with --descendants, also the scopes below it)')
    .description('list live skills in one scope (default: global), by slug')
    .option('--descendants', 'include the scopes below it')
    .flags('limit', 'cursor')
    .run(async (ctx, opts: ScopeFlags & { descendants?: boolean; limit?: number; cursor?: string; at?: string }) => {
      const skills = await withReader(ctx.dbPath, opts.at, {}, (db) =>
        db.skills.list({ scope: scopeFrom(opts), includeDescendants: opts.descendants === true, limit: opts.limit, cursor: opts.cursor }),
      );
      show(ctx, skills, () => printTable(skillColumns, skills, '(no skills in this scope)'));
    });

  withScopeFlags(sub(group, 'show', 'at'), SLUG_IN_SCOPE)
    .description('show a skill by id, or by slug (most specific along the scope chain)')
    .argument('<id-or-slug>', 'skill id or slug')
    .run(async (ctx, key: string, opts: ScopeFlags & { at?: string }) => {
      const skill = await withReader(ctx.dbPath, opts.at, {}, (db) => db.skills.get(key, { scope: scopeFrom(opts) }));
      show(ctx, skill, printSkill);
    });

  withReadScope(sub(group, 'search', 'at'), 'skills', true)
    .description('search live skills by slug, name, body and tags (prefix tokens, every one required unless --match any)')
    .argument('<query>', 'search text')
    .option('--order <order>', `${SKILL_SEARCH_ORDERS.join(', ')}`, oneOf(SKILL_SEARCH_ORDERS), 'slug')
    .flags('limit', 'match', 'cursor')
    .run(async (ctx, query: string, { at, scope, parents, descendants, ...rest }: SearchFlags) => {
      const options = { ...rest, ...scopeRead({ scope, parents, descendants }) };
      const skills = await withReader(ctx.dbPath, at, {}, (db) => db.skills.search(query, options));
      show(ctx, skills, () => printTable(skillColumns, skills, '(no matching skills)'));
    });

  withScopeFlags(sub(group, 'upsert', 'operationId'), 'the skill lives in this scope (default: global)')
    .description('create or update the skill keyed by (scope, slug); fields left out keep their values')
    .argument('[slug]', 'slug (or "slug" in --file): lowercase letters and digits with single "-", "_" or "." between them')
    .option('--file <path>', 'read the skill from a JSON file (- for stdin); flags override its fields')
    .option('--name <text>', 'display name')
    .option('--body <text>', 'the procedure')
    .option('--body-file <path>', 'read the body from a file (- for stdin)')
    .option('--tag <tag>', 'a tag (repeat for several); replaces the stored tags', collect)
    .option('--check <command>', 'a command that re-verifies the skill')
    .option(
      '--sync-version <n>',
      'only if the stored syncVersion equals this (optimistic concurrency; shown by skills show and the SYNC column)',
      nonNegativeInt,
    )
    .run(async (ctx, slug: string | undefined, opts: UpsertFlags) => {
      const input = await upsertInput(slug, opts);
      // Checked before the file is created: a refused write leaves nothing behind.
      parseInput(upsertSkillInputSchema, input);
      const skill = await withDatabase(ctx.dbPath, { create: true }, (db) => db.skills.upsert(input));
      const { version, syncVersion, id } = skill;
      show(
        ctx,
        skill,
        `${version === 1 ? 'created' : 'updated'} skill ${skill.slug} (${describeScope(skill.scope)}), version ${version}, syncVersion ${syncVersion}, id ${id}`,
      );
    });

  withScopeFlags(sub(group, 'outcome', 'operationId'), SLUG_IN_SCOPE)
    .description('record that a run used the skill, and whether it succeeded')
    .argument('<id-or-slug>', 'skill id or slug')
    .option('--success', 'the run succeeded')
    .option('--failure', 'the run failed')
    .run(async (ctx, key: string, opts: ScopeFlags & OperationFlags & { success?: boolean; failure?: boolean }) => {
      if (opts.success && opts.failure) throw new UserError('give one of --success and --failure, not both');
      if (!opts.success && !opts.failure) throw new UserError('say how the run went: --success or --failure');
      const skill = await withDatabase(ctx.dbPath, {}, (db) =>
        db.skills.recordOutcome(key, { success: opts.success === true, scope: scopeFrom(opts), operationId: opts.operationId }),
      );
      show(ctx, skill, `recorded a ${opts.success ? 'success' : 'failure'} for ${skill.slug}: ${skill.wins} wins of ${skill.uses} uses`);
    });

  withScopeFlags(sub(group, 'delete', 'operationId'), SLUG_IN_SCOPE)
    .description('delete a skill (a tombstone stays in the log)')
    .argument('<id-or-slug>', 'skill id or slug')
    .run(async (ctx, key: string, opts: ScopeFlags & OperationFlags) => {
      const skill = await withDatabase(ctx.dbPath, {}, (db) => db.skills.delete(key, { scope: scopeFrom(opts), operationId: opts.operationId }));
      show(ctx, skill, `deleted skill ${skill.slug} (${describeScope(skill.scope)})`);
    });

  group.addCommand(historyCommand('skill', ['skill'], SLUG_IN_SCOPE));

  return group;
}
