/** The package's version, read from its package.json; imports nothing heavy, so `--version` stays fast. */
import { readFileSync } from 'node:fs';

/** The version of `@agentstate/cli`. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
