/**
 * Runs an example of the repository's examples/ folder, as its README says
 * (`npx tsx examples/<name>/agent.ts` from the root, after the build), so
 * the examples cannot drift from the packages they import. An example is
 * library code alone: it is imported into the test's process (whose working
 * directory is the root), where the built packages are already loaded.
 */
import { fileURLToPath } from 'node:url';
import { printedOnImport } from './readme-example.js';

/** Runs examples/`name`/agent.ts and returns what it printed. */
export function runExample(name: string): Promise<string> {
  return printedOnImport(fileURLToPath(new URL(`../examples/${name}/agent.ts`, import.meta.url)));
}
