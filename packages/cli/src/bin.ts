#!/usr/bin/env node
/** The `agentstate` executable. */
import { version } from './version.js';

// A closed pipe (`agentstate export | head`) is a normal end, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// The version alone needs no command tree: answered before commander and the commands load.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${version()}\n`);
} else {
  const [{ run }, { processIo }] = await Promise.all([import('./program.js'), import('./io.js')]);
  process.exitCode = await run(process.argv, processIo());
}
