/**
 * Starts the MCP servers a README configures, exactly as a host would: every
 * ```json block with an `mcpServers` entry is parsed, its placeholder paths
 * are filled in, and its `command` and `args` are spawned over stdio with the
 * SDK's own client. Keeps configuration snippets from drifting or, worse,
 * naming a package that is not there.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** One `mcpServers` entry of a README. */
export interface ServerConfig {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** Every `mcpServers` entry of every ```json block of `readmePath`, in order. */
export function mcpConfigs(readmePath: string): ServerConfig[] {
  const blocks = [...readFileSync(readmePath, 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);
  return blocks.flatMap((block) => {
    const servers = (block as { mcpServers?: Record<string, { command: string; args?: string[]; env?: Record<string, string> }> }).mcpServers ?? {};
    return Object.entries(servers).map(([name, s]) => ({ name, command: s.command, args: s.args ?? [], env: s.env ?? {} }));
  });
}

/** `text` with every placeholder (a key of `paths`) replaced by its value. */
function fill(text: string, paths: Readonly<Record<string, string>>): string {
  return Object.entries(paths).reduce((out, [placeholder, path]) => out.replaceAll(placeholder, path), text);
}

/**
 * A client connected to the server `config` starts, in `cwd`, with the
 * placeholders of `paths` filled in. The environment is only PATH and HOME
 * (what a host passes) plus the entry's own `env`.
 */
export async function startConfigured(config: ServerConfig, paths: Readonly<Record<string, string>>, cwd: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: fill(config.command, paths),
    args: config.args.map((arg) => fill(arg, paths)),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...config.env },
    cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'readme-config', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
