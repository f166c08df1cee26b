/**
 * `agentstate demo`: writes a small, realistic agent state (a session with
 * turns, skills with outcomes, memory items) into a new database — a
 * temporary one unless `--db` or `AGENTSTATE_DB` names one — then shows
 * recall and verification on it, and the commands to explore it further.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { STATE_STREAM } from '@agentstate/core';
import { DATABASE_ENV } from '@agentstate/open';
import { SUMMARIES } from '../command-list.js';
import { sqliteOnly, withDatabase } from '../database.js';
import { isPostgresUrl } from '@agentstate/postgres/url';
import { DamagedDatabaseError, UserError } from '../errors.js';
import { inCwd, io } from '../io.js';
import { print, printJson, printTable } from '../output.js';
import { printVerifyReport } from '../verify.js';
import { hitColumns, recallWith } from './memory.js';
import { printTranscript } from '../transcript.js';
import { skillColumns } from './skills.js';

const TURNS = [
  { role: 'user', content: 'The staging deploy fails since this morning.' },
  { role: 'assistant', content: 'The new migration adds a NOT NULL column without a default. Rolling it back.' },
  { role: 'tool', content: 'git revert 3f2c1e0 && npm run deploy:staging -> ok' },
  { role: 'assistant', content: 'Staging is green again. I saved the rollback as a skill.' },
] as const;

const SKILLS = [
  {
    slug: 'rollback',
    name: 'Roll back a bad deploy',
    body: 'git revert the release commit, then redeploy',
    tags: ['ops', 'deploy'],
    outcomes: [true, true, false],
  },
  {
    slug: 'safe-migration',
    name: 'Write a safe migration',
    body: 'Add the column as nullable, backfill it, then add the constraint',
    tags: ['db'],
    outcomes: [true],
  },
  { slug: 'release-notes', name: 'Write release notes', body: 'List user-facing changes since the last tag, newest first', tags: ['docs'], outcomes: [true] },
] as const;

const MEMORY = [
  { kind: 'preference', content: 'The user prefers dark mode in every editor', source: 'chat' },
  { kind: 'fact', content: 'Staging deploys run on Cloudflare Workers', source: 'session' },
  { kind: 'fact', content: 'The production database is PostgreSQL 15 with nightly backups', source: 'runbook' },
  { kind: 'decision', content: 'Releases happen on Tuesdays, never on Fridays', source: 'team meeting' },
  { kind: 'preference', content: 'Answers should be short, with the command first', source: 'chat' },
] as const;

/**
 * How the printed commands start: `npx` runs the `agentstate` bin of the
 * project it is run in (a checkout after `npm ci`, or a project that
 * installed the package), where a bare `agentstate` is not on the PATH.
 * `--no` keeps npx from ever downloading a registry package of that name
 * elsewhere, and `--` ends npx's options so every flag reaches agentstate.
 */
const COMMAND = 'npx --no -- agentstate';

const LEXICAL_QUERY = 'deploy';
const HYBRID_QUERY = 'which color theme does the user like?';

const EXPLORE = ['sessions list', 'log tail', 'stats', '--help'] as const;

/** Where the demo writes: `--db`, else `AGENTSTATE_DB`, else a new temporary folder. */
function demoPath(flag: string | undefined): string {
  const chosen = flag ?? (io().env[DATABASE_ENV] || undefined);
  if (chosen === undefined) return join(mkdtempSync(join(tmpdir(), 'agentstate-demo-')), 'state.db');
  if (isPostgresUrl(chosen))
    throw new UserError('the demo writes a new SQLite file: choose a file path with --db (import its export into a server with `agentstate import`)');
  const path = inCwd(chosen);
  if (existsSync(path)) throw new UserError(`${path} exists: the demo writes a new database (choose another --db)`);
  return path;
}

function shell(command: string): void {
  print(`\n$ ${COMMAND} ${command}`);
}

/** The `demo` command. */
export function demoCommand(): Command {
  return new Command('demo').description(SUMMARIES.demo).action(async (_opts: unknown, cmd: Command) => {
    const globals = cmd.optsWithGlobals<{ db?: string; json?: boolean }>();
    const json = globals.json === true;
    const path = demoPath(globals.db);

    const written = await withDatabase(path, { create: true }, async (db) => {
      const session = await db.sessions.create({ title: 'Deploy is failing on staging', model: 'gpt-4.1' });
      for (const t of TURNS) await db.sessions.appendTurn({ sessionId: session.id, role: t.role, content: t.content });
      for (const { outcomes, ...skill } of SKILLS) {
        await db.skills.upsert({ ...skill, tags: [...skill.tags] });
        for (const success of outcomes) await db.skills.recordOutcome(skill.slug, { success });
      }
      for (const m of MEMORY) await db.memory.write(m);
      return {
        session: await db.sessions.get(session.id),
        turns: await db.sessions.turns(session.id),
        skills: await db.skills.list(),
        events: await db.log.head(STATE_STREAM),
      };
    });

    const lexical = await recallWith(path, LEXICAL_QUERY, { mode: 'lexical' });
    const hybrid = await recallWith(path, HYBRID_QUERY, { mode: 'hybrid', limit: 3 });
    const report = await withDatabase(path, { readonly: true }, (db) => sqliteOnly(db, 'demo').verify());
    if (!report.ok) throw new DamagedDatabaseError(`the demo database failed verification: ${report.problems[0]?.message ?? 'unknown damage'}`);

    if (json) return printJson({ db: path, ...written, recall: { lexical: lexical.hits, hybrid: hybrid.hits }, verify: report });
    print(`agentstate demo: a sample agent state in ${path}`);
    print(
      `1 session with ${written.turns.length} turns, ${written.skills.length} skills with outcomes, ${MEMORY.length} memory items: ${written.events} events in the log.`,
    );
    const db = `--db ${path}`;
    shell(`sessions show ${written.session.id} ${db}`);
    printTranscript(written.turns);
    shell(`skills list ${db}`);
    printTable(skillColumns, written.skills, '(no skills)');
    shell(`memory recall ${LEXICAL_QUERY} --mode lexical ${db}`);
    printTable(hitColumns, lexical.hits, '(nothing recalled)');
    shell(`memory recall "${HYBRID_QUERY}" --mode hybrid --limit 3 ${db}`);
    printTable(hitColumns, hybrid.hits, '(nothing recalled)');
    shell(`verify ${db}`);
    printVerifyReport(report);
    print(`\nExplore it yourself, from this project:\n  export ${DATABASE_ENV}=${path}\n${EXPLORE.map((c) => `  ${COMMAND} ${c}\n`).join('')}`.trimEnd());
  });
}
