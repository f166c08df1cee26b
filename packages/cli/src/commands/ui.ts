/**
 * `agentstate ui`: serves the inspector page of `@agentstate/ui` over the
 * database on 127.0.0.1 until interrupted. The database is opened
 * read-only unless `--allow-writes` lets the page delete and purge records; the
 * default embedder is loaded so the page can compare lexical, semantic and
 * hybrid recall.
 */
import type { Command } from 'commander';
import { isPostgresUrl } from '@agentstate/postgres/url';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show } from '../context.js';
import { openDatabase } from '../database.js';
import { io } from '../io.js';
import { nonNegativeInt } from '../parse.js';
import { resolveSnapshotKey, SNAPSHOT_KEY_ENV } from '@agentstate/open';

/** The environment variable that holds the page's token when `--token` is not given. */
export const UI_TOKEN_ENV = 'AGENTSTATE_UI_TOKEN';

/** Resolves when the process is asked to stop. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/** The `ui` command. */
export function uiCommand(): Command {
  return new CliCommand('ui')
    .description(SUMMARIES.ui)
    .option('--port <port>', 'the port on 127.0.0.1 (0: a free one)', nonNegativeInt, 8777)
    .option('--token <token>', `a secret of 16+ characters every API call must carry, for use through a tunnel or proxy (default: $${UI_TOKEN_ENV})`)
    .option('--allow-writes', 'let the page delete and purge sessions, memory items and skills (each confirmed there); default: read-only')
    .option('--snapshot-key <file>', `the key stored snapshots are sealed with, for the timeline's past states (default: $${SNAPSHOT_KEY_ENV})`)
    .run(async (ctx, opts: { port: number; token?: string; allowWrites?: boolean; snapshotKey?: string }) => {
      const { serveUi } = await import('@agentstate/ui');
      const key = resolveSnapshotKey(opts.snapshotKey, io().env, io().cwd);
      const db = await openDatabase(ctx.dbPath, { readonly: !opts.allowWrites, embedder: 'static', snapshotCodec: key?.codec });
      try {
        const ui = await serveUi(db, {
          port: opts.port,
          token: opts.token ?? (io().env[UI_TOKEN_ENV] || undefined),
          allowWrites: opts.allowWrites === true,
          databaseFile: isPostgresUrl(ctx.dbPath) ? undefined : ctx.dbPath,
        });
        const started = { url: ui.url, port: ui.port, allowWrites: opts.allowWrites === true };
        show(ctx, started, `agentstate inspector at ${ui.url} (${opts.allowWrites ? 'writes allowed' : 'read-only'}; Ctrl-C stops it)`);
        await interrupted();
        await ui.close();
      } finally {
        await db.close();
      }
    });
}
