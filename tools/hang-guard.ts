/**
 * How long a test, a hook or a child process it waits for may take before it
 * counts as hung. A guard against a hang, never a bound on speed: on a loaded
 * machine, with files side by side, a test that spawns processes may take
 * minutes, so no test sets a shorter limit of its own.
 */
export const HANG_GUARD_MS = 600_000;
