/** `agentstate retention`: set, list and remove retention policies, and apply them (a sweep). */
import type { Command } from 'commander';
import type { RetentionPolicy } from '@agentstate/core';
import { describeScope, RETENTION_ACTIONS, RETENTION_RECORDS, setRetentionInputSchema, parseInput } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show, sub, withScopeFlags } from '../context.js';
import { withDatabase, withReader } from '../database.js';
import type { Column } from '../output.js';
import { printTable } from '../output.js';
import type { ScopeFlags } from '../parse.js';
import { oneOf, scopeFrom } from '../parse.js';

const DAY_MS = 86_400_000;

/** An age as the policy's text would give it: whole days when it is some, else milliseconds. */
function age(ms: number): string {
  return ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : `${ms}ms`;
}

const policyColumns: Column<RetentionPolicy>[] = [
  { header: 'id', cell: (p) => p.id, max: 40 },
  { header: 'record', cell: (p) => p.record },
  { header: 'memory kind', cell: (p) => p.memoryKind ?? '(any)', max: 16 },
  { header: 'scope', cell: (p) => describeScope(p.scope), max: 32 },
  { header: 'max age', cell: (p) => age(p.maxAgeMs), align: 'right' },
  { header: 'action', cell: (p) => p.action },
];

/** The `retention` command group. */
export function retentionCommand(): Command {
  const group = new CliCommand('retention').description(SUMMARIES.retention);

  withScopeFlags(group.command('set'), 'the policy covers this scope and the scopes below it (default: global, which covers everything)')
    .description('set a policy (a policy with the same id is replaced): records of a kind expire at an age')
    .requiredOption('--record <record>', `what it covers: ${RETENTION_RECORDS.join(', ')}`, oneOf(RETENTION_RECORDS))
    .requiredOption('--max-age <age>', 'the age at which a record expires: a number and a unit (ms, s, m, h, d, w, y), like 90d')
    .option('--kind <kind>', 'with --record memory: only memory of this kind')
    .option('--id <id>', 'names the policy (default: from what it covers, e.g. memory:scratch@*)')
    .option('--action <action>', `what a sweep does: ${RETENTION_ACTIONS.join(', ')} (default: tombstone)`, oneOf(RETENTION_ACTIONS))
    .run(async (ctx, { kind, maxAge, ...opts }: ScopeFlags & { record: string; maxAge: string; kind?: string; id?: string; action?: string }) => {
      const maxAgeInput = /^\d+$/.test(maxAge) ? Number(maxAge) : maxAge;
      const input = parseInput(setRetentionInputSchema, { ...opts, scope: scopeFrom(opts), memoryKind: kind, maxAge: maxAgeInput });
      const policy = await withDatabase(ctx.dbPath, {}, (db) => db.retention.set(input));
      show(ctx, policy, `set retention policy ${policy.id}: ${policy.record} after ${age(policy.maxAgeMs)} (${policy.action})`);
    });

  sub(group, 'list', 'at')
    .description('list the policies in force, by id')
    .run(async (ctx, opts: { at?: string }) => {
      const policies = await withReader(ctx.dbPath, opts.at, {}, (db) => db.retention.list());
      show(ctx, policies, () => printTable(policyColumns, policies, '(no retention policies)'));
    });

  sub(group, 'remove')
    .description('remove a policy')
    .argument('<id>', 'the policy id')
    .run(async (ctx, id: string) => {
      const policy = await withDatabase(ctx.dbPath, {}, (db) => db.retention.remove(id));
      show(ctx, policy, `removed retention policy ${policy.id}`);
    });

  sub(group, 'apply')
    .description(
      'sweep by policy: tombstone (or, for purge policies, erase) every live record a policy expires now; facts past their own --expires are swept by `memory sweep`',
    )
    .run(async (ctx) => {
      const swept = await withDatabase(ctx.dbPath, {}, (db) => db.retention.apply());
      show(ctx, swept, `swept ${swept.sessions} sessions, ${swept.turns} turns, ${swept.skills} skills, ${swept.memory} memory items`);
    });

  return group;
}
