/**
 * Test what we publish: every public package under packages/ (found at run
 * time, so new ones are covered) is packed with `npm pack` and installed
 * from its tarball into a new, empty project outside the repository, its
 * third-party dependencies coming from npm's cache as for a user who
 * installed them before (`--offline`: the checkout's `npm ci` filled it),
 * at the versions the checkout's lockfile pins (tools/app-lockfile.ts says
 * why the project needs that lockfile). There the documented commands run
 * as written: `npx --no -- agentstate demo`, the MCP server through the
 * SDK's client (as the README's host entries configure it), and the code
 * examples of the root and MCP READMEs.
 *
 * One `npm pack` packs every package and one `npm ci` installs every
 * tarball. better-sqlite3 installs from a prebuilt binary, as a user's
 * install downloads one for this platform: here the checkout's own build,
 * offered as a local prebuild, so the install compiles nothing.
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appLockfile } from '../../../tools/app-lockfile.js';
import { mcpConfigs, startConfigured } from '../../../tools/mcp-config.js';
import { runExamples, tsExamples } from '../../../tools/readme-example.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const checkout = fileURLToPath(new URL('../../..', import.meta.url));

/** A package.json, as far as this test reads it. */
interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  description?: string;
  keywords?: string[];
  files?: string[];
  exports?: Record<string, { types?: string; default?: string }>;
  engines?: { node?: string };
  repository?: { type: string; url: string; directory: string };
  dependencies?: Record<string, string>;
}

/** Every package under packages/ that is not private, with its folder. */
function publicPackages(): Array<{ dir: string; manifest: Manifest }> {
  const root = join(checkout, 'packages');
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = join(root, entry.name);
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
        return manifest.private ? [] : [{ dir, manifest }];
      } catch {
        return []; // a folder without a package.json is no package
      }
    });
}

/**
 * The environment of a user's shell: no npm_* variables of the `npm test`
 * that runs this file, and no node_modules/.bin of the checkout on the PATH,
 * so nothing can resolve to the repository instead of the installed project.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== 'AGENTSTATE_DB') env[key] = value;
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => !p.includes('node_modules'))
    .join(':');
  env.NO_COLOR = '1';
  return env;
}

const packages = publicPackages();
const work = mkdtempSync(join(tmpdir(), 'agentstate-packaging-'));
const tarballs = join(work, 'tarballs');
const app = join(work, 'app');
const packed = new Map<string, string[]>();

function run(command: string, args: string[], options: ExecFileSyncOptions = {}): string {
  return execFileSync(command, args, { cwd: app, env: userEnv(), encoding: 'utf8', stdio: 'pipe', timeout: HANG_GUARD_MS, ...options }) as string;
}

beforeAll(() => {
  mkdirSync(tarballs);
  mkdirSync(app);
  const results = JSON.parse(
    run('npm', ['pack', '--json', '--pack-destination', tarballs, ...packages.flatMap(({ dir }) => ['--workspace', dir])], { cwd: checkout }),
  ) as Array<{ name: string; filename: string; integrity: string; files: Array<{ path: string }> }>;
  for (const result of results) packed.set(result.name, [join(tarballs, result.filename), ...result.files.map((f) => f.path)]);
  const dependencies = results.map(({ name, filename, integrity }) => ({ name, tarball: `../tarballs/${filename}`, integrity }));
  const manifest = { name: 'app', version: '1.0.0', private: true, dependencies: Object.fromEntries(dependencies.map((d) => [d.name, `file:${d.tarball}`])) };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(app, 'package-lock.json'), `${JSON.stringify(appLockfile(checkout, 'app', dependencies), null, 2)}\n`);
  run('npm', ['ci', '--offline', '--no-fund', '--no-audit'], {
    env: { ...userEnv(), npm_config_better_sqlite3_local_prebuilds: localPrebuild() },
  });
});

/**
 * A folder holding better-sqlite3's prebuilt binary for this platform under the name prebuild-install looks for
 * (the one its release downloads carry), made from the checkout's build of the same version.
 */
function localPrebuild(): string {
  const source = join(checkout, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string };
  const dir = join(work, 'prebuilds');
  mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  run('tar', ['-czf', join(dir, name), '-C', source, 'build/Release/better_sqlite3.node']);
  return dir;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('every public package', () => {
  it('is found under packages/', () => {
    expect(packages.map((p) => p.manifest.name)).toEqual(
      expect.arrayContaining(['@agentstate/core', '@agentstate/sqlite', '@agentstate/cli', '@agentstate/mcp']),
    );
  });

  it.each(packages.map((p) => [p.manifest.name, p] as const))('%s has the metadata a registry package needs', (_, { dir, manifest }) => {
    expect(manifest.name).toMatch(/^@agentstate\/[a-z-]+$/);
    expect(manifest.license).toBe('MIT');
    expect(manifest.description?.length).toBeGreaterThan(20);
    expect(manifest.keywords?.length).toBeGreaterThan(0);
    // The OpenAI Agents adapter needs what the SDK version it pins needs (its `openai` 7 declares Node 22).
    expect(manifest.engines?.node).toBe(manifest.name === '@agentstate/openai-agents' ? '>=22' : '>=20');
    expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/agentstate/agentstate.git', directory: dir.slice(checkout.length) });
    for (const entry of Object.values(manifest.exports ?? {})) expect(entry.types).toMatch(/^\.\/dist\/.*\.d\.ts$/);
    expect(Object.keys(manifest.exports ?? {})).toContain('.');
    // An internal dependency is exact, so a tarball install never resolves to an unrelated registry release.
    for (const [dep, version] of Object.entries(manifest.dependencies ?? {})) if (dep.startsWith('@agentstate/')) expect(version, dep).toBe('0.1.0');
  });

  it.each(packages.map((p) => [p.manifest.name] as const))('%s packs only what a user needs', (name) => {
    const files = packed.get(name)!.slice(1);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
    // The inspector's page (@agentstate/ui) ships as built files: its HTML and stylesheet beside the scripts.
    for (const file of files)
      expect(file).toMatch(
        /^(package\.json|README\.md|LICENSE|bin\/[^/]+\.js|dist\/.+\.(js|d\.ts)|dist\/page\/(index\.html|assets\/[^/]+\.css)|data\/[^/]+\.bin)$/,
      );
    expect(files.filter((f) => /(^|\/)(test|tests|src)\/|\.test\.|\.map$|tsbuildinfo/.test(f))).toEqual([]);
  });
});

describe('in a new project that installed the tarballs', () => {
  it('runs `npx --no -- agentstate demo` as the README says', () => {
    const out = run('npx', ['--no', '--', 'agentstate', 'demo']);
    expect(out).toMatch(/^ok: the tables equal a replay of all \d+ events, byte for byte/m);
  });

  it('imports every export of every package, each with its types file', () => {
    const specifiers = packages.flatMap(({ manifest }) =>
      Object.entries(manifest.exports ?? {}).map(([subpath, entry]) => {
        const specifier = `${manifest.name}${subpath.slice(1)}`;
        expect(existsSync(join(app, 'node_modules', manifest.name, entry.types!)), `${specifier} types`).toBe(true);
        return specifier;
      }),
    );
    // One process imports them all: a node start per export cost seconds each.
    const script = `for (const s of ${JSON.stringify(specifiers)}) console.log(s, Object.keys(await import(s)).length)`;
    const counts = new Map(
      run(process.execPath, ['--input-type=module', '-e', script])
        .trim()
        .split('\n')
        .map((line) => [line.split(' ')[0]!, Number(line.split(' ')[1])] as const),
    );
    for (const specifier of specifiers) expect(counts.get(specifier), specifier).toBeGreaterThan(0);
  });

  it("runs the root README's code examples", () => {
    const [first, second] = readmeExamples();
    expect(first).toContain("[ 'The user prefers dark mode' ]");
    expect(second).toContain('The customer is on the pro tier 2');
  });

  it("runs the MCP README's example, a client starting the installed server", () => {
    expect(readmeExamples()[2]).toContain("[ 'The user prefers dark themes (1)' ]");
  });

  it("starts the server as every installed-package entry of the MCP README configures it, with the SDK's client", async () => {
    const entries = mcpConfigs(join(checkout, 'packages/mcp/README.md')).filter((c) => ![c.command, ...c.args].some((a) => a.includes('/path/to/agentstate')));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    const db = join(work, 'mcp.db');
    for (const entry of entries) {
      const client = await startConfigured(entry, { '/path/to/your-project': app, '/Users/you/.agentstate/state.db': db }, app);
      try {
        await client.callTool({ name: 'remember', arguments: { content: `installed ${entry.command}` } });
        const recalled = await client.callTool({ name: 'recall', arguments: { query: 'installed', mode: 'lexical' } });
        expect((recalled.structuredContent as { hits: Array<{ content: string }> }).hits.map((h) => h.content)).toContain(`installed ${entry.command}`);
      } finally {
        await client.close();
      }
    }
  });
});

let printed: string[] | undefined;

/**
 * What the root README's first two examples and the MCP README's first printed, run as files of the installed project
 * (so their imports resolve there), all in one process. tsx comes from the checkout (a user has their own); only the
 * loader is borrowed, not the packages.
 */
function readmeExamples(): string[] {
  const sources = [...tsExamples(join(checkout, 'README.md')).slice(0, 2), tsExamples(join(checkout, 'packages/mcp/README.md'))[0]!];
  printed ??= runExamples(
    sources.map((source) => ({ source, dir: app })),
    userEnv(),
  );
  return printed;
}
