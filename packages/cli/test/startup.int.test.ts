/**
 * What each command loads: help and version load no command module, and a
 * lexical recall loads neither the embedder nor the MCP server. Start-up
 * times themselves are measured by bench/startup.ts, not asserted here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ok, tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => dir.cleanup());

// A module loader hook that writes down every module URL loaded, one a line.
const hooks = dir.path('hooks.mjs');
writeFileSync(
  hooks,
  "import { appendFileSync } from 'node:fs';\n" +
    'export async function load(url, context, next) {\n' +
    '  appendFileSync(process.env.LOADED_LIST, url + "\\n");\n' +
    '  return next(url, context);\n' +
    '}\n',
);
const register = dir.path('register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

let runs = 0;

/** The module URLs `agentstate ...args` loads. */
function loadedBy(args: readonly string[]): string[] {
  runs += 1;
  const list = dir.path(`loaded-${runs}.txt`);
  writeFileSync(list, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    env: { ...process.env, LOADED_LIST: list, AGENTSTATE_DB: '' },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(list, 'utf8').split('\n').filter(Boolean);
}

const from = (urls: readonly string[], part: RegExp): string[] => urls.filter((u) => part.test(u));
const CORE = /\/packages\/core\/(?!dist\/errors\.js)|\/node_modules\/zod\//;
const BACKEND = /\/packages\/sqlite\/(?!dist\/defaults\.js)|better-sqlite3|sqlite-vec/;
const EMBEDDER = /\/packages\/embeddings\//;
const MCP = /\/packages\/mcp\/|@modelcontextprotocol/;

describe('what a command loads', () => {
  it('help and version load no command, core, backend, embedder or MCP server', () => {
    for (const args of [['--version'], ['--help'], []]) {
      const urls = loadedBy(args.length === 0 ? ['help'] : args);
      expect(from(urls, /\/cli\/dist\/commands\/(?!mcp\.js)/)).toEqual([]);
      expect(from(urls, CORE)).toEqual([]);
      expect(from(urls, BACKEND)).toEqual([]);
      expect(from(urls, EMBEDDER)).toEqual([]);
      expect(from(urls, MCP)).toEqual([]);
    }
  });

  it('a lexical recall loads the memory command and the backend, but not the embedder or the MCP server', () => {
    const db = dir.path('state.db');
    ok(['memory', 'write', 'the staging deploy failed', '--db', db]);
    const urls = loadedBy(['memory', 'recall', 'deploy', '--mode', 'lexical', '--db', db]);
    expect(from(urls, /\/cli\/dist\/commands\/memory\.js/)).toHaveLength(1);
    expect(from(urls, /\/cli\/dist\/commands\/(sessions|log|maintenance|transfer|demo)\.js/)).toEqual([]);
    expect(from(urls, BACKEND).length).toBeGreaterThan(0);
    expect(from(urls, EMBEDDER)).toEqual([]);
    expect(from(urls, MCP)).toEqual([]);
  });
});
