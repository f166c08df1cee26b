/**
 * Exits 0 when the inspector's built page (packages/ui/dist/page) is newer
 * than every file it is built from, so `npm run build` skips a page build
 * that would write the same files; exits 1 when it is missing or older. The
 * page bundles its own sources, the inspector's sources it imports, the
 * built core, and the locked dependencies.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = fileURLToPath(new URL('../packages/ui', import.meta.url));
const inputs = ['page', 'src', '../core/dist', '../../package-lock.json', '../../tsconfig.base.json'].map((p) => join(ui, p));

/** The newest modification time under `path`; infinitely new when it is missing, so a missing input means stale. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return Number.POSITIVE_INFINITY;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const built = statSync(join(ui, 'dist/page/index.html'), { throwIfNoEntry: false });
process.exitCode = built !== undefined && Math.max(...inputs.map(newest)) < built.mtimeMs ? 0 : 1;
