/**
 * Every README and doc runs the commands through `npx --no --`: the unscoped
 * registry package `agentstate` belongs to an unrelated project, and a plain
 * `npx agentstate` where the command is not installed would download and run
 * it. `--no` makes npx refuse to download; `--` passes every flag on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git']);

/** Every Markdown file of the repository. */
function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** How `text` starts the repository's commands with npx, on the command line or in a host's JSON entry, other than `npx --no --`. */
function unsafeNpx(text: string): string[] {
  const line = [...text.matchAll(/\bnpx((?:\s+-\S*)*)\s+(agentstate(?:-mcp)?)\b/g)].filter((m) => m[1]!.trim() !== '--no --').map((m) => m[0]);
  const json = [...text.matchAll(/"command":\s*"npx",\s*"args":\s*\[([^\]]*)\]/g)]
    .filter((m) => /"agentstate(-mcp)?"/.test(m[1]!) && !/^\s*"--no",\s*"--",\s*"agentstate/.test(m[1]!))
    .map((m) => m[0]);
  return [...line, ...json];
}

describe('npx in the docs', () => {
  it('recognises a plain npx, in a shell line and in a JSON entry', () => {
    expect(unsafeNpx('run `npx agentstate verify`')).toEqual(['npx agentstate']);
    expect(unsafeNpx('npx -y agentstate-mcp --db x')).toEqual(['npx -y agentstate-mcp']);
    expect(unsafeNpx('{ "command": "npx", "args": ["agentstate-mcp"] }')).toHaveLength(1);
    expect(unsafeNpx('npx --no -- agentstate demo; { "command": "npx", "args": ["--no", "--", "agentstate-mcp"] }')).toEqual([]);
  });

  it('runs agentstate and agentstate-mcp as `npx --no --` in every README and doc', () => {
    const files = markdownFiles(ROOT);
    expect(files.map((f) => relative(ROOT, f))).toContain('packages/mcp/README.md');
    const found = files.flatMap((file) => unsafeNpx(readFileSync(file, 'utf8')).map((use) => `${relative(ROOT, file)}: ${use}`));
    expect(found).toEqual([]);
  });
});
