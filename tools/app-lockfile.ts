/**
 * The package-lock.json of a project that installs the packed tarballs,
 * made from the checkout's own lockfile: each tarball at
 * `node_modules/@agentstate/<name>`, and every third-party package they
 * need (dependencies, optional dependencies, required peers, transitively)
 * at the place and version the checkout's `npm ci` installed it.
 *
 * Why: npm 11 resolves a version range from the registry's full packument,
 * which `npm ci` never downloads, so an `--offline` install without a
 * lockfile fails on a machine whose cache holds only tarballs. With this
 * lockfile the install reads nothing but the tarballs the checkout's
 * `npm ci` cached, and installs exactly the versions the checkout tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One entry of a lockfile's `packages`, as far as this module reads it. */
interface LockEntry {
  version?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A packed workspace package: its name, and its tarball's path relative to the project and integrity. */
export interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
  readonly integrity: string;
}

/** The lockfile (version 3) of project `name` whose dependencies are `packed`, from the lockfile at `checkout`. */
export function appLockfile(checkout: string, name: string, packed: readonly PackedPackage[]): object {
  const lock = (JSON.parse(readFileSync(join(checkout, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const folderOf = new Map(packed.map((p) => [lock[`node_modules/${p.name}`]!.resolved!, p.name]));
  const packages: Record<string, LockEntry> = {
    '': { name, version: '1.0.0', dependencies: Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`])) },
  };
  const pending: Array<[string, LockEntry]> = [];
  for (const [folder, packageName] of folderOf) {
    const { tarball, integrity } = packed.find((p) => p.name === packageName)!;
    const manifest = JSON.parse(readFileSync(join(checkout, folder, 'package.json'), 'utf8')) as LockEntry;
    const { version, license, dependencies, optionalDependencies, peerDependencies, peerDependenciesMeta, bin, engines } = manifest;
    packages[`node_modules/${packageName}`] = {
      version,
      resolved: `file:${tarball}`,
      integrity,
      license,
      dependencies,
      optionalDependencies,
      peerDependencies,
      peerDependenciesMeta,
      bin,
      engines,
    };
    pending.push([folder, manifest]);
  }
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [from, entry] = next;
    for (const [dep, optional] of needs(entry)) {
      const found = resolve(lock, from, dep);
      if (found === undefined) {
        if (optional) continue;
        throw new Error(`the checkout's lockfile has no ${dep} for ${from || 'the root'}`);
      }
      const target = lock[found]!;
      const at = placeIn(found, folderOf);
      if (target.link || packages[at]) continue;
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...copy } = target;
      packages[at] = copy;
      pending.push([found, target]);
    }
  }
  return { name, version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** What `entry` needs installed beside it, each with whether it may be missing. */
function needs(entry: LockEntry): Array<[string, boolean]> {
  const optionalPeers = new Set(
    Object.entries(entry.peerDependenciesMeta ?? {})
      .filter(([, m]) => m.optional)
      .map(([n]) => n),
  );
  return [
    ...Object.keys(entry.dependencies ?? {}).map((n): [string, boolean] => [n, false]),
    ...Object.keys(entry.optionalDependencies ?? {}).map((n): [string, boolean] => [n, true]),
    ...Object.keys(entry.peerDependencies ?? {})
      .filter((n) => !optionalPeers.has(n))
      .map((n): [string, boolean] => [n, false]),
  ];
}

/** Where Node's resolution from the folder `from` of the checkout finds `dep`, as a lockfile key. */
function resolve(lock: Record<string, LockEntry>, from: string, dep: string): string | undefined {
  for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
    const key = `${dir ? `${dir}/` : ''}node_modules/${dep}`;
    if (lock[key]) return key;
    if (!dir) return undefined;
  }
}

/** The project's place for the checkout's lockfile key `key`: a workspace folder's own node_modules move under its package. */
function placeIn(key: string, folderOf: ReadonlyMap<string, string>): string {
  const folder = [...folderOf.keys()].find((f) => key.startsWith(`${f}/node_modules/`));
  return folder ? `node_modules/${folderOf.get(folder)}${key.slice(folder.length)}` : key;
}
