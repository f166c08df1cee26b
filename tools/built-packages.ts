/**
 * A vite plugin for the tests: an import of a package's `src/` module
 * resolves to the module tsc built from it in `dist/`, which Node loads
 * itself. Tests already import the other packages built (`npm test` builds
 * first), so a file that imported its own package's sources ran two copies
 * of it side by side, and vite transformed and evaluated every module
 * through its runner, which cost more time than the tests of most files.
 */
import type { Plugin } from 'vite';

const SOURCE = /\/packages\/([^/]+)\/src\/(.+)\.ts$/;

/** Built packages are loaded by Node, not transformed: the pattern for vitest's `server.deps.external`. */
export const BUILT = /\/packages\/[^/]+\/dist\//;

/** Resolves `packages/<name>/src/<path>.ts` to `packages/<name>/dist/<path>.js`. */
export function builtPackages(): Plugin {
  return {
    name: 'agentstate:built-packages',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (importer === undefined || !source.includes('src/')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (resolved === null || !SOURCE.test(resolved.id)) return null;
      return { id: resolved.id.replace(SOURCE, '/packages/$1/dist/$2.js'), external: true };
    },
  };
}
