/**
 * The pieces that decide who may reach what: flag parsing, the scope policy,
 * and the loopback rules, imported from their modules: none of them is part of
 * the package's surface.
 */
import { describe, expect, it } from 'vitest';
import { USAGE, parseMcpArgs, usage } from '../src/args.js';
import { ScopeDeniedError, ScopePolicy } from '../src/scope-policy.js';
import { UsageError } from '../src/usage-error.js';

describe('parseMcpArgs', () => {
  it('defaults to stdio, the global scope, and no extra reach', () => {
    expect(parseMcpArgs([], {})).toEqual({
      kind: 'run',
      options: {
        db: undefined,
        embedder: undefined,
        scope: [],
        allowSubscopes: false,
        readParents: false,
        allowPurge: false,
        transport: 'stdio',
      },
    });
  });

  it('reads scope, reach, HTTP flags, and the token from the environment', () => {
    const parsed = parseMcpArgs(
      [
        '--db',
        'a.db',
        '--scope',
        'instance:i/project:p/workspace:w',
        '--allow-subscopes',
        '--read-parents',
        '--allow-purge',
        '--http',
        '--port',
        '0',
        '--embedder',
        'none',
      ],
      { AGENTSTATE_MCP_TOKEN: 'from-the-environment' },
    );
    expect(parsed).toEqual({
      kind: 'run',
      options: {
        db: 'a.db',
        embedder: 'none',
        scope: ['instance:i', 'project:p', 'workspace:w'],
        allowSubscopes: true,
        readParents: true,
        allowPurge: true,
        transport: 'http',
        http: { host: undefined, port: 0, token: 'from-the-environment' },
      },
    });
    const flag = parseMcpArgs(['--http', '--token', 'from-the-flag-123'], { AGENTSTATE_MCP_TOKEN: 'from-the-environment' });
    expect(flag.kind === 'run' && flag.options.http?.token).toBe('from-the-flag-123');
  });

  it('answers help and version, under the name the program runs as', () => {
    expect(parseMcpArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseMcpArgs(['-V'])).toEqual({ kind: 'version' });
    expect(parseMcpArgs(['--version'])).toEqual({ kind: 'version' });
    expect(USAGE).toMatch(/^Usage: agentstate-mcp \[options\]\n/);
    expect(usage('agentstate mcp')).toMatch(/^Usage: agentstate mcp \[options\]\n/);
  });

  it('refuses mistakes with a usage error naming the flag', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--bogus'], /bogus/],
      [['stray'], /stray/],
      [['--port', '80'], /--port only applies with --http/],
      [['--http', '--port', 'http'], /--port must be a number/],
      [['--http', '--port', '70000'], /--port must be a number/],
      [['--embedder', 'gpt'], /--embedder must be static or none/],
      [['--project', 'web'], /project/],
      [['--instance', 'laptop'], /instance/],
      [['--workspace', 'api'], /workspace/],
      [['--db', ' '], /--db must not be empty/],
      [['--http', '--token', ''], /--token must not be empty/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseMcpArgs(argv, {}), argv.join(' ')).toThrow(UsageError);
      expect(() => parseMcpArgs(argv, {}), argv.join(' ')).toThrow(message);
    }
  });
});

describe('ScopePolicy', () => {
  const project = ['project:web'];
  const api = ['project:web', 'workspace:api'];
  const other = ['project:shop'];
  const global: string[] = [];

  it("binds to a path, and appends a call's relative path to it", () => {
    const policy = new ScopePolicy({ scope: ['project:web'], allowSubscopes: true });
    expect(policy.bound).toEqual(project);
    expect(policy.target(undefined)).toEqual(project);
    expect(policy.target([])).toEqual(project);
    expect(policy.target(['workspace:api'])).toEqual(api);
    expect(new ScopePolicy({ scope: ['team', 'web'], allowSubscopes: true }).target(['api', 'v2'])).toEqual(['team', 'web', 'api', 'v2']);
    expect(() => policy.target([''])).toThrow(/scope\.1/);
  });

  it('refuses subscopes unless allowed; a relative path can never name a parent or a sibling', () => {
    const strict = new ScopePolicy({ scope: ['project:web'] });
    expect(() => strict.target(['workspace:api'])).toThrow(ScopeDeniedError);
    expect(() => strict.target(['workspace:api'])).toThrow(/did not allow subscopes/);
    const open = new ScopePolicy({ scope: ['project:web'], allowSubscopes: true });
    expect(open.target(['..'])).toEqual(['project:web', '..']);
  });

  it('reads parents only when the operator allows it', () => {
    const strict = new ScopePolicy({ scope: ['project:web'] });
    expect(strict.includeParents(undefined)).toBe(false);
    expect(strict.includeParents(false)).toBe(false);
    expect(() => strict.includeParents(true)).toThrow(/does not read parent scopes/);
    expect(strict.canRead(global)).toBe(false);
    const open = new ScopePolicy({ scope: ['project:web'], readParents: true });
    expect(open.includeParents(undefined)).toBe(true);
    expect(open.includeParents(false)).toBe(false);
    expect(open.readScopes(project, true)).toEqual([project, global]);
    expect(open.canRead(global)).toBe(true);
    expect(open.canWrite(global)).toBe(false);
    expect(() => open.assertWritable('skill', 'deploy', global)).toThrow(/may read but not change/);
  });

  it('decides reads and writes of stored records', () => {
    const policy = new ScopePolicy({ scope: ['project:web'], allowSubscopes: true });
    expect(policy.canWrite(project)).toBe(true);
    expect(policy.canWrite(api)).toBe(true);
    expect(policy.canRead(other)).toBe(false);
    expect(() => policy.assertReadable('memory', 'm1', other)).toThrow('memory not found: m1');
    expect(new ScopePolicy({ scope: ['project:web'] }).canWrite(api)).toBe(false);
  });
});
