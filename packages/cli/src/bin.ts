#!/usr/bin/env node
/** The `agentstate` executable. */
import { run } from './program.js';

// A closed pipe (`agentstate export | head`) is a normal end, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await run(process.argv);
