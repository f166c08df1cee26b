/** `agentstate sync <a> <b>`: two databases (SQLite files or PostgreSQL schemas), or one and a server, exchange what each lacks (docs/contract.md §12). */
import { describeScope, httpPeer, type ScopeInput, SyncHttpError, sync, type SyncPeer, type SyncSummary, toScope } from '@agentstate/core';
import { SUMMARIES } from '../command-list.js';
import { CliCommand, show, withScopeFlags } from '../context.js';
import { describeTarget, resolveTarget } from '@agentstate/open';
import { openDatabase } from '../database.js';
import { InterruptedError } from '../errors.js';
import { io } from '../io.js';
import { onStopSignal } from '../signals.js';
import { positiveInt, type ScopeFlags, scopeFrom } from '../parse.js';
import { count } from '../output.js';
import { startProgress } from '../progress.js';

/** The `sync` command. */
export function syncCommand(): CliCommand {
  const command = new CliCommand('sync')
    .description(SUMMARIES.sync)
    .argument('<a>', 'a database file, a postgres:// URL, or the sync URL of a server (http://127.0.0.1:8765/sync)')
    .argument('<b>', 'another database file, created when missing: a new replica of <a>; or a postgres:// or server URL')
    .option('--batch-size <n>', 'events per batch, each one transaction (default: 1,000, then about 4 MiB of JSON a batch)', positiveInt)
    .option('--token <token>', "a server's bearer token; prefer $AGENTSTATE_MCP_TOKEN, which `ps` does not show");
  return withScopeFlags(command, "only the events whose records all lie in this scope's subtree travel, both ways (default: the whole store)").run(
    async (ctx, a: string, b: string, opts: { batchSize?: number; token?: string } & ScopeFlags) => {
      const started = performance.now();
      // An empty variable is unset, as an empty AGENTSTATE_DB is.
      const token = opts.token ?? (io().env.AGENTSTATE_MCP_TOKEN || undefined);
      const first = await openSide(a, false, token);
      try {
        const second = await openSide(b, true, token);
        try {
          const progress = startProgress('syncing', 0, ctx.json);
          const scope = scopeFrom(opts);
          const stop = stopOnSignal(() => progress.stop());
          let sofar: SyncSummary = { toA: 0, toB: 0, merged: 0, batches: 0 };
          const options = {
            ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
            onProgress: (s: SyncSummary) => {
              sofar = s;
              progress.update(s.toA + s.toB);
            },
            ...(scope ? { scope } : {}),
            signal: stop.signal,
          };
          const summary = await sync(first.peer, second.peer, options)
            .catch((error: unknown) =>
              Promise.reject(
                stop.signal.aborted && error === stop.signal.reason ? stopped(stop.signal.reason as NodeJS.Signals, sofar, a, b) : withTokenHint(error, token),
              ),
            )
            .finally(() => {
              stop.end();
              progress.stop();
            });
          // A URL's password is never printed.
          const report = { a: describeTarget(a), b: describeTarget(b), ...summary, seconds: (performance.now() - started) / 1000 };
          const hint = summary.toA + summary.toB === 0 ? await unheldScope(scope, [first, second]) : '';
          show(
            ctx,
            report,
            `synced ${report.a} and ${report.b}: ${counted(summary.toA, 'event')} into ${report.a}, ${counted(summary.toB, 'event')} into ${report.b}, in ${counted(summary.batches, 'batch')} (${report.seconds.toFixed(2)} s)${merges(summary.merged)}${hint}`,
          );
        } finally {
          await second.close();
        }
      } finally {
        await first.close();
      }
    },
  );
}

/** One side of a sync, and, for a database, whether it holds a live record in a scope's subtree (a server does not say). */
interface Side {
  peer: SyncPeer;
  close(): Promise<void>;
  holds?: (scope: ScopeInput) => Promise<boolean>;
}

/**
 * The word on a scope a sync that moved nothing was limited to, when neither side holds a live record in its
 * subtree (most likely a misspelt `--scope`); else '', as when a side cannot say (a server) or the scope is global.
 */
async function unheldScope(scope: ScopeInput | undefined, sides: readonly Side[]): Promise<string> {
  if (scope === undefined || scope.length === 0) return '';
  for (const side of sides) if (side.holds === undefined || (await side.holds(scope))) return '';
  return `; neither holds a live record in ${describeScope(toScope(scope))}: is --scope right?`;
}

/** One side of a sync: a server named by its http(s) URL, a SQLite file (created when `create`) or a PostgreSQL schema's URL. */
async function openSide(side: string, create: boolean, token: string | undefined): Promise<Side> {
  if (/^https?:\/\//i.test(side)) return { peer: httpPeer(side, token === undefined ? {} : { token }), close: async () => {} };
  const db = await openDatabase(resolveTarget(side, {}, io().cwd), create ? { create: true } : {});
  return { peer: db, close: () => db.close(), holds: async (scope) => (await db.namespaces({ prefix: toScope(scope), limit: 1 })).length > 0 };
}

/**
 * Aborts `signal` on the first stop signal, saying so on stderr (`clear` first clears the progress bar): the batch
 * in flight still finishes, and is kept; a second signal ends the process at once. `end` removes the handler.
 */
function stopOnSignal(clear: () => void): { signal: AbortSignal; end(): void } {
  const controller = new AbortController();
  const end = onStopSignal((name) => {
    clear();
    io().stderr.write(`agentstate: stopping after the batch in flight (${name} again stops at once)\n`);
    controller.abort(name);
  });
  return { signal: controller.signal, end };
}

/** The error of a sync `signal` stopped, saying what stays and how to go on. */
function stopped(signal: NodeJS.Signals, sofar: SyncSummary, a: string, b: string): InterruptedError {
  return new InterruptedError(
    signal,
    `sync stopped by ${signal} after ${counted(sofar.batches, 'batch')}: ${counted(sofar.toA, 'event')} into ${describeTarget(a)} and ${counted(sofar.toB, 'event')} into ${describeTarget(b)} stay; run it again to go on`,
  );
}

/** A server's 401, told where its token comes from: the server's answer speaks of headers, not of this command's flags. */
function withTokenHint(error: unknown, token: string | undefined): unknown {
  if (!(error instanceof SyncHttpError) || error.status !== 401) return error;
  const hint = token === undefined ? 'no token was given: set $AGENTSTATE_MCP_TOKEN or pass --token' : 'the server refused the token given';
  return new SyncHttpError(401, `${error.message} (${hint})`, { cause: error });
}

/** The summary's word on merges, when there were some: the versions that lost are in `history`, marked. */
const merges = (merged: number): string =>
  merged === 0 ? '' : `; ${counted(merged, 'event')} merged with writes made apart: \`history\` marks the versions that lost as conflicts`;

/** `n` and its noun, plural unless one: `1 event`, `2 batches`. */
const counted = (n: number, noun: string): string => `${count(n)} ${n === 1 ? noun : noun.endsWith('h') ? `${noun}es` : `${noun}s`}`;
