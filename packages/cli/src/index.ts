/**
 * @agentstate/cli — the `agentstate` command: inspect, search, verify,
 * export and import an agent's state from the terminal. The package's main
 * entry lets a host embed the command (`run(argv)` returns the exit code).
 */
export { createProgram, run } from './program.js';
export { UserError, DamagedDatabaseError, InterruptedError, exitCodeFor, describeError } from './errors.js';
export { ExitCode } from '@agentstate/open';
