import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from './helpers.js';
import { runSession } from './session.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

/** The `$ ` lines of the README's first ```sh block. */
function firstShellSession(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('$ '))
    .map((line) => line.slice(2));
}

describe('the README', () => {
  it('runs its shell session as written, every command succeeding', async () => {
    const commands = firstShellSession();
    expect(commands.length).toBeGreaterThan(5);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.AGENTSTATE_DB;
    const out = await runSession(commands, tmp.dir, env);
    expect(out).toContain('The user deploys from the main branch only');
    expect(out).toMatch(/\(2 hits, lexical recall\)/);
    expect(out).toMatch(/^SCORE +KIND +CREATED +CONTENT +ID\n\d\.\d{3} +preference +\S+ \S+ +The user prefers dark mode in every editor /m);
    expect(out).toMatch(/hits, hybrid recall\)/);
    expect(out).toContain('imported 20 events');
    expect(out.match(/^ok: the tables equal a replay of all 20 events/gm)).toHaveLength(2);
    expect(out).toMatch(/^synced \.\/state\.db and \.\/laptop\.db: 0 events into \.\/state\.db, 20 events into \.\/laptop\.db, in 1 batch /m);
    expect(out).toMatch(
      /^synced \.\/laptop\.db and \.\/state\.db: 1 event into \.\/laptop\.db, 2 events into \.\/state\.db, in 2 batches \(.*\); 2 events merged with writes made apart/m,
    );
    // The file's head, the two events received counted; the laptop's events up to its own two.
    expect(out).toMatch(/^origin: +[0-9a-f]{32} up to #23 \(this store\)$/m);
    expect(out).toMatch(/^origin: +[0-9a-f]{32} up to #22$/m);
  });

  it('lists every command and subcommand in its table of commands', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    const { LAZY_COMMANDS } = await import('../dist/command-list.js');
    const names: string[] = ['mcp'];
    for (const entry of LAZY_COMMANDS) {
      const command = await entry.load();
      const subcommands = command.commands.map((c) => c.name()).filter((name) => name !== 'help');
      names.push(...(subcommands.length === 0 ? [entry.name] : subcommands.map((sub) => `${entry.name} ${sub}`)));
    }
    const missing = names.filter((name) => !rows.some((row) => row.includes(`\`${name}\``) || row.includes(`\`${name} `)));
    expect(missing).toEqual([]);
  });

  it('documents every global flag the program takes', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const help = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    const options = help.slice(help.indexOf('Options:'), help.indexOf('Commands:'));
    const flags = [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
    expect(flags).toContain('--local-time');
    for (const flag of flags) expect(readme).toContain(flag);
  });
});
