#!/usr/bin/env node
// The `agentstate-mcp` executable as npm links it: it exists before the first
// build (so `npm ci` can link it and mark it executable) and runs the built
// server in dist/.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write('agentstate-mcp: the server is not built yet: run `npm run build` at the repository root\n');
  process.exit(1);
}
await import(built.href);
