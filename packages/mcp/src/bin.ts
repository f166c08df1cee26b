#!/usr/bin/env node
/** The `agentstate-mcp` executable. */
import { mcpMain } from './main.js';

process.on('unhandledRejection', (reason) => console.error('agentstate-mcp: unhandled rejection:', reason));
process.exitCode = await mcpMain(process.argv.slice(2));
