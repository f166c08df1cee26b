/**
 * Every ```ts and ```js block of every README is accounted for: run by a
 * named test, or, for a block of declarations (an API summary), checked here
 * against the built package — each declared name is exported and each listed
 * member exists (and, for an interface that extends nothing, is all there
 * is). A README that gains a block fails this test until the block is
 * covered, so no example can drift unseen.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const checkout = fileURLToPath(new URL('../../..', import.meta.url));

/** What covers each block of a README, in order: the test that runs it, or `declarations`. */
const COVERAGE: Record<string, ReadonlyArray<string>> = {
  'README.md': [
    'packages/sqlite/test/root-readme.int.test.ts',
    'packages/sqlite/test/root-readme.int.test.ts',
    'packages/sqlite/test/root-readme.int.test.ts',
    'packages/sqlite/test/root-readme.int.test.ts',
    'packages/sqlite/test/root-readme.int.test.ts',
    'packages/cli/test/readme-sync.int.test.ts',
  ],
  'packages/ai-sdk/README.md': [
    'packages/ai-sdk/test/readme.int.test.ts',
    'packages/ai-sdk/test/readme.int.test.ts',
    'packages/ai-sdk/test/readme.int.test.ts',
  ],
  'packages/cli/README.md': [],
  'packages/core/README.md': ['packages/core/test/readme.int.test.ts'],
  'packages/embeddings/README.md': ['packages/embeddings/test/readme.test.ts', 'packages/embeddings/test/readme-server.int.test.ts', 'declarations'],
  'packages/langgraph/README.md': [
    'packages/langgraph/test/readme.int.test.ts',
    'packages/langgraph/test/readme.int.test.ts',
    'packages/langgraph/test/readme.int.test.ts',
    'packages/langgraph/test/readme.int.test.ts',
  ],
  'packages/postgres/README.md': ['packages/postgres/test/readme.int.test.ts', 'packages/postgres/test/readme.int.test.ts'],
  'packages/ui/README.md': ['packages/ui/test/readme.int.test.ts'],
  'packages/mcp/README.md': ['packages/mcp/test/readme.int.test.ts', 'packages/mcp/test/readme.int.test.ts', 'packages/mcp/test/readme.int.test.ts'],
  'packages/open/README.md': ['packages/open/test/readme.test.ts'],
  'packages/openai-agents/README.md': [
    'packages/openai-agents/test/readme.int.test.ts',
    'packages/openai-agents/test/readme.int.test.ts',
    'packages/openai-agents/test/readme.int.test.ts',
  ],
  'packages/sqlite/README.md': ['packages/sqlite/test/readme.int.test.ts'],
  'packages/testing/README.md': [
    'packages/testing/test/readme.int.test.ts',
    'packages/testing/test/readme.int.test.ts',
    'declarations',
    'packages/testing/test/readme.int.test.ts',
  ],
};

/** The root README and every package's, found at run time. */
function readmes(): string[] {
  const packages = readdirSync(join(checkout, 'packages'))
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(join(checkout, path)));
  return ['README.md', ...packages];
}

/** The ```ts and ```js blocks of a README, in order. */
function codeBlocks(path: string): string[] {
  return [...readFileSync(join(checkout, path), 'utf8').matchAll(/```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * TypeScript that compiles only when the declarations of `block` match the
 * exports of `pkg`: values are referenced, types named, members keyed.
 */
function declarationCheck(pkg: string, block: string): string {
  const lines = [`import type * as T from '${pkg}';`, `import * as V from '${pkg}';`];
  const text = block.replace(/\/\/.*$/gm, '');
  for (const [, name] of text.matchAll(/^(?:abstract )?(?:class|function|const) (\w+)/gm)) lines.push(`void V.${name};`);
  for (const [, name] of text.matchAll(/^type (\w+)/gm)) lines.push(`export type _${name} = T.${name};`);
  for (const [, name, parent, body] of text.matchAll(/^interface (\w+)(?: extends (\w+))? \{\n([\s\S]*?)^\}/gm)) {
    const members = [...body!.matchAll(/^ {2}(?:readonly )?(\w+)\??[(:]/gm)].map((m) => `'${m[1]}'`);
    lines.push(`export const _${name}: Array<keyof T.${name}> = [${members.join(', ')}];`);
    if (parent === undefined)
      lines.push(`export const _${name}_all: [Exclude<keyof T.${name}, ${members.join(' | ')}>] extends [never] ? true : false = true;`);
  }
  return `${lines.join('\n')}\n`;
}

describe('every README code block', () => {
  it('is covered by a test or checked as declarations', () => {
    const found = Object.fromEntries(readmes().map((path) => [path, codeBlocks(path).length]));
    const covered = Object.fromEntries(Object.entries(COVERAGE).map(([path, by]) => [path, by.length]));
    expect(found).toEqual(covered);
    for (const by of Object.values(COVERAGE)) for (const test of by) if (test !== 'declarations') expect(existsSync(join(checkout, test)), test).toBe(true);
  });

  const declarations = Object.entries(COVERAGE).flatMap(([path, by]) =>
    by.flatMap((kind, index) => (kind === 'declarations' ? [[path, index + 1] as const] : [])),
  );
  const checks = declarations.map(([path, number], i) => {
    const dir = join(checkout, path, '..');
    const pkg = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
    return { pkg, source: declarationCheck(pkg, codeBlocks(path)[number - 1]!), file: join(dir, `.readme-declarations-${process.pid}-${i}.mts`) };
  });
  /** What tsc printed about the checks, all compiled in one run (a tsc start and the Node types loaded once); '' when all compile. */
  let complaints = '';

  beforeAll(() => {
    for (const { file, source } of checks) writeFileSync(file, source);
    try {
      const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
      const args = [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        '--types',
        'node',
      ];
      execFileSync(process.execPath, [tsc, ...args, ...checks.map((c) => c.file)], { cwd: checkout, encoding: 'utf8', stdio: 'pipe', timeout: HANG_GUARD_MS });
    } catch (error) {
      complaints = (error as { stdout?: string }).stdout || String(error);
    } finally {
      for (const { file } of checks) rmSync(file, { force: true });
    }
  });

  it.each(declarations.map(([path, number], i) => [path, number, i] as const))('%s block %i declares what the built package exports', (path, number, i) => {
    const { pkg, source, file } = checks[i]!;
    expect(source).toMatch(/V\.|T\./);
    // A complaint naming no check file (tsc itself failing) fails every check.
    const mine = complaints.split('\n').filter((line) => line.includes(basename(file)));
    const unplaced = !checks.some((c) => complaints.includes(basename(c.file)));
    if (mine.length > 0 || (complaints !== '' && unplaced))
      throw new Error(`${path} block ${number} does not match ${pkg}:\n${unplaced ? complaints : mine.join('\n')}\n${source}`);
  });
});
