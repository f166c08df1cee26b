/**
 * Runs a README's shell session as written: bash runs its `$ ` lines, and each `agentstate` they call is a small
 * client (fixtures/remote-cli.mjs) of this process, which runs the built command inside it (`in-process.ts`) with the
 * arguments bash parsed and the environment and working directory of that moment. A Node start and the command's
 * modules loaded once for the session, not once per line; `startup.int.test.ts`, the demo's and the packaging tests
 * start the real `bin` in a process of its own.
 */
import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli } from './in-process.js';

const CLIENT = fileURLToPath(new URL('./fixtures/remote-cli.mjs', import.meta.url));

/** The variables a run of the client sees that this process does not: what the session set, and the client's socket. */
function changed(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && process.env[name] !== value && name !== 'PATH') out[name] = value;
  return out;
}

/**
 * Runs `commands` with `bash -euo pipefail` in `dir` (which gets the `agentstate` client and the socket), with `env`
 * (the client first on its PATH); resolves to what the session printed on stdout, rejects when a line fails.
 */
export async function runSession(commands: readonly string[], dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const socket = join(dir, '.agentstate-session.sock');
  const server = createServer((connection) => {
    let request = '';
    connection.setEncoding('utf8').on('data', (chunk: string) => {
      request += chunk;
      if (!request.endsWith('\n')) return;
      const { args, env: seen, cwd } = JSON.parse(request) as { args: string[]; env: NodeJS.ProcessEnv; cwd: string };
      connection.end(JSON.stringify(cli(args, { env: changed(seen), cwd })));
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const shim = join(dir, 'agentstate');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLIENT}" "$@"\n`);
  chmodSync(shim, 0o755);
  try {
    const bash = spawn('bash', ['-euo', 'pipefail', '-c', commands.join('\n')], {
      cwd: dir,
      env: { ...env, PATH: `${dir}:${env.PATH ?? ''}`, AGENTSTATE_SESSION_SOCKET: socket },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    bash.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    bash.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => bash.on('close', (exit) => resolve(exit)));
    if (code !== 0) throw new Error(`the session failed (exit ${code}): ${stderr}\n${stdout}`);
    return stdout;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
