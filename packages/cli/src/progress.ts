/**
 * A one-line progress bar on stderr for long work (import, export, rebuild).
 * It draws only when stderr is a terminal, so pipes, files and scripts see
 * nothing of it, and it redraws at most ten times a second.
 */
import { io } from './io.js';

/** A running progress bar. */
export interface Progress {
  /** Sets how much is done. */
  update(done: number): void;
  /** Sets the total when it becomes known. */
  setTotal(total: number): void;
  /** Clears the bar. */
  stop(): void;
}

const BAR_WIDTH = 24;
const REDRAW_MS = 100;

/** How amounts are shown: a count of things, or bytes. */
export type ProgressUnit = 'count' | 'bytes';

function amount(n: number, unit: ProgressUnit): string {
  return unit === 'bytes' ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n.toLocaleString('en-US');
}

/** The bar's text for `done` of `total` (total 0: unknown). */
export function renderProgress(label: string, done: number, total: number, unit: ProgressUnit = 'count'): string {
  if (total <= 0) return `${label} ${amount(done, unit)}`;
  const ratio = Math.min(1, done / total);
  const filled = Math.round(ratio * BAR_WIDTH);
  const percent = String(Math.floor(ratio * 100)).padStart(3);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${percent}% ${amount(done, unit)}/${amount(total, unit)}`;
}

const silent: Progress = { update: () => undefined, setTotal: () => undefined, stop: () => undefined };

/** Starts a progress bar, or a silent one when stderr is not a terminal or `quiet` is set. */
export function startProgress(label: string, total = 0, quiet = false, unit: ProgressUnit = 'count'): Progress {
  const stream = io().stderr;
  if (quiet || !(stream as { isTTY?: boolean }).isTTY) return silent;
  let done = 0;
  let last = 0;
  let drawn = false;
  const draw = (): void => {
    stream.write(`\r${renderProgress(label, done, total, unit)}\u001b[K`);
    drawn = true;
  };
  return {
    update(value) {
      done = value;
      const now = performance.now();
      if (now - last >= REDRAW_MS) {
        last = now;
        draw();
      }
    },
    setTotal(value) {
      total = value;
    },
    stop() {
      if (drawn) stream.write('\r\u001b[K');
    },
  };
}

/** Events an open must fold before the command tells of it: fewer are folded in a moment. */
export const FOLD_NOTICE_EVENTS = 10_000;

/** What {@link foldProgress} returns: the open's `onProgress`, and its end. */
export interface FoldProgress {
  /** The `onProgress(done, total)` of `openDatabase`. */
  onProgress(done: number, total: number): void;
  /** Ends the notice: clears the bar, or says `done` after the line (`opened` false: the open failed, nothing more is said). */
  end(opened: boolean): void;
}

/**
 * Tells of the fold an open runs (a file an earlier version wrote, whose
 * tables are folded again from its log; a log appended to without a
 * provider) once it has {@link FOLD_NOTICE_EVENTS} events or more: a bar
 * on a terminal, else one line on stderr as it starts and `done` as the
 * open ends, so a script's log shows why a command took minutes.
 */
export function foldProgress(): FoldProgress {
  let bar: Progress | undefined;
  let line = false;
  return {
    onProgress(done, total) {
      if (total < FOLD_NOTICE_EVENTS) return;
      const stream = io().stderr;
      if (bar === undefined && !line) {
        if ((stream as { isTTY?: boolean }).isTTY) bar = startProgress('folding the log into the tables', total);
        else {
          stream.write(`folding ${total.toLocaleString('en-US')} events of the log into the tables…\n`);
          line = true;
        }
      }
      bar?.update(done);
    },
    end(opened) {
      bar?.stop();
      if (line && opened) io().stderr.write('done\n');
    },
  };
}
