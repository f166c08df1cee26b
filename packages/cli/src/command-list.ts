/**
 * The top-level commands as `agentstate --help` lists them, and the module
 * that defines each. Loading a command module loads what its actions need
 * (core, the SQLite backend…), so the command tree holds light stand-ins
 * and only the command being run is loaded (see `lazy-command.ts`): help
 * and version load none of them.
 */
import type { Command } from 'commander';

/** What a top-level command's help says it does: the one home of these words. */
export const SUMMARIES = {
  sessions: 'resumable conversations and their transcripts',
  skills: 'reusable, versioned procedures with outcome evidence',
  memory: 'durable facts with provenance',
  namespaces: 'the distinct scopes that hold live sessions, skills or memory (--prefix, --depth)',
  diff: 'what was created, changed and deleted between two points of the log (--from, --to: a seq or an ISO-8601 instant)',
  threads: "graph threads (a LangGraph checkpointer's) and their checkpoints",
  retention: 'retention policies (records of a kind expire at an age) and their sweep',
  log: 'the event log behind the state (stream "state"); --json prints JSON Lines',
  verify:
    "check the whole file: SQLite's integrity check, the log replayed against the tables and stored snapshots, the full-text and vector indexes (exit 2 when damaged, with the repair)",
  rebuild: 'drop every projection table and derive it again from the log (from the newest valid snapshot)',
  snapshot: 'save a snapshot of the whole state in the database, bound to it and sealed with the snapshot key if given (or --print its canonical text)',
  stats: 'counts, sizes, the stream head and the last snapshot',
  export: 'write the event log as JSON Lines (one event per line, in seq order, then a trailer line) to stdout or --out',
  import: 'create a new database (--db) from a JSON Lines export, checking every event before anything is kept',
  sync: 'bring two databases (files or postgres:// URLs), or one and a server (an http URL), together: each receives the events it lacks from the other, batch by batch (a missing <b> is created)',
  ui: 'open the inspector: a local web page over sessions, memory, skills, the event log and health (read-only unless --allow-writes)',
  purge: 'erase a record, a namespace (--namespace) or every text match (--matching) for good, from the log, the tables and the snapshots (--reason, --yes)',
  demo: 'create a sample state in a new database (temporary unless --db is given) and show recall and verification on it',
} as const;

/** The name of a command loaded on demand. */
export type LazyCommandName = keyof typeof SUMMARIES;

/** A command loaded on demand. */
export interface CommandEntry {
  readonly name: LazyCommandName;
  /**
   * How the list of commands shows it (`import [options] <file>`): the real
   * command's options and arguments are not known until it is loaded. A test
   * holds each to the real command's.
   */
  readonly term: string;
  /** Loads the module that defines it and returns the command. */
  readonly load: () => Promise<Command>;
}

const pick = (commands: readonly Command[], name: string): Command => commands.find((c) => c.name() === name)!;

const maintenance = (name: string) => async () => pick((await import('./commands/maintenance.js')).maintenanceCommands(), name);
const transfer = (name: string) => async () => pick((await import('./commands/transfer.js')).transferCommands(), name);

/** Every command loaded on demand, in the order of the help. */
export const LAZY_COMMANDS: readonly CommandEntry[] = [
  { name: 'sessions', term: 'sessions', load: async () => (await import('./commands/sessions.js')).sessionsCommand() },
  { name: 'skills', term: 'skills', load: async () => (await import('./commands/skills.js')).skillsCommand() },
  { name: 'memory', term: 'memory', load: async () => (await import('./commands/memory.js')).memoryCommand() },
  { name: 'namespaces', term: 'namespaces [options]', load: async () => (await import('./commands/namespaces.js')).namespacesCommand() },
  { name: 'diff', term: 'diff [options]', load: async () => (await import('./commands/diff.js')).diffCommand() },
  { name: 'threads', term: 'threads', load: async () => (await import('./commands/threads.js')).threadsCommand() },
  { name: 'retention', term: 'retention', load: async () => (await import('./commands/retention.js')).retentionCommand() },
  { name: 'log', term: 'log', load: async () => (await import('./commands/log.js')).logCommand() },
  { name: 'verify', term: 'verify [options]', load: maintenance('verify') },
  { name: 'rebuild', term: 'rebuild [options]', load: maintenance('rebuild') },
  { name: 'snapshot', term: 'snapshot [options]', load: maintenance('snapshot') },
  { name: 'stats', term: 'stats', load: maintenance('stats') },
  { name: 'export', term: 'export [options]', load: transfer('export') },
  { name: 'import', term: 'import [options] <file>', load: transfer('import') },
  { name: 'sync', term: 'sync [options] <a> <b>', load: async () => (await import('./commands/sync.js')).syncCommand() },
  { name: 'ui', term: 'ui [options]', load: async () => (await import('./commands/ui.js')).uiCommand() },
  { name: 'purge', term: 'purge [options] [id]', load: async () => (await import('./commands/purge.js')).purgeCommand() },
  { name: 'demo', term: 'demo', load: async () => (await import('./commands/demo.js')).demoCommand() },
];
