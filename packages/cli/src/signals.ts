/**
 * The signals a command stops on: Ctrl-C, a supervisor's SIGTERM, a closed
 * terminal's SIGHUP. A command that handles them stops as its work allows (a
 * sync after its batch in flight, an import once its half-made file is gone)
 * and exits 128 + the signal's number, as a shell reports a process the
 * signal ended.
 */
import { constants } from 'node:os';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The exit code of a command `signal` stopped: 128 + its number. */
export const signalExitCode = (signal: NodeJS.Signals): number => 128 + constants.signals[signal];

/**
 * Calls `handler` on the first stop signal. The function returned removes it, as that first signal does: a second
 * signal then has its default effect.
 */
export function onStopSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  const off = (): void => {
    for (const name of STOP_SIGNALS) process.removeListener(name, listener);
  };
  const listener = (signal: NodeJS.Signals): void => {
    off();
    handler(signal);
  };
  for (const name of STOP_SIGNALS) process.on(name, listener);
  return off;
}
