/**
 * A guard over the source of every package: errors raised on purpose are
 * `AgentStateError` subclasses with a stable code, so no `src/` file
 * constructs a built-in error (`new Error(…)`, `new RangeError(…)`,
 * `throw TypeError(…)`) or declares a class extending one, except core's
 * `AgentStateError` itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILT_IN = '(?:Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError)';
const CONSTRUCTED = new RegExp(`(?:\\bnew\\s+|\\bthrow\\s+)${BUILT_IN}\\s*\\(`);
const SUBCLASSED = new RegExp(`\\bclass\\s+(\\w+)[^{]*\\bextends\\s+${BUILT_IN}\\b`);
/** The one class allowed to extend `Error`, and where. */
const BASE = { file: 'packages/core/src/errors.ts', name: 'AgentStateError' };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `file:line: text` of every line that breaks the rule. */
function plainErrors(root: string): string[] {
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const found: string[] = [];
  for (const pkg of packages) {
    for (const path of sourceFiles(join(root, 'packages', pkg.name, 'src'))) {
      const file = relative(root, path).split('\\').join('/');
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const subclass = SUBCLASSED.exec(line);
          const allowed = subclass !== null && file === BASE.file && subclass[1] === BASE.name;
          if (CONSTRUCTED.test(line) || (subclass && !allowed)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  return found;
}

describe('library code', () => {
  it('reads the source of every package', () => {
    const scanned = readdirSync(join(ROOT, 'packages')).filter((pkg) => sourceFiles(join(ROOT, 'packages', pkg, 'src')).length > 0);
    expect(scanned).toEqual(expect.arrayContaining(['core', 'sqlite', 'embeddings', 'cli', 'mcp', 'testing']));
  });

  it('raises no built-in error and subclasses none but AgentStateError', () => {
    expect(plainErrors(ROOT)).toEqual([]);
  });

  it('would notice one', () => {
    expect(CONSTRUCTED.test("    throw new Error('the database is closed');")).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the string is a line of source, template literal included.
    expect(CONSTRUCTED.test('if (row >= count) throw new RangeError(`more than ${count} words`);')).toBe(true);
    expect(CONSTRUCTED.test("return Promise.reject(new TypeError ('x'));")).toBe(true);
    expect(CONSTRUCTED.test("throw Error('x');")).toBe(true);
    expect(CONSTRUCTED.test("throw new SnapshotSealError('not sealed');")).toBe(false);
    expect(CONSTRUCTED.test('if (!isAgentStateError(error)) throw error;')).toBe(false);
    expect(SUBCLASSED.exec('export class UsageError extends Error {')?.[1]).toBe('UsageError');
    expect(SUBCLASSED.exec('export abstract class AgentStateError extends Error {')?.[1]).toBe('AgentStateError');
    expect(SUBCLASSED.test('export class ScopeDeniedError extends AgentStateError {')).toBe(false);
    expect(SUBCLASSED.test('interface DriverError extends Error {')).toBe(false);
  });
});
