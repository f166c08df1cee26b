/**
 * Runs the mixed writers of G9 and V9 at once on the storage of a provider: as processes of their
 * own where the factory says how another process opens it (`otherProcess`), else each on a second
 * provider of the storage (`sharedStorage`), else all on the provider itself.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { EventSourcedProvider, Provider, Session } from '@agentstate/core';
import type { ProcessTarget } from '../factory.js';
import type { CheckEnv } from './harness.js';
import { runMixedWriter, type WriterPlan, type WriterReport } from './mixed-writer.js';

const SCRIPT = fileURLToPath(new URL('./writer-process.js', import.meta.url));

/** The slug of the skill the writers share. */
export const SHARED_SKILL = 'shared-skill';

/** Fresh storage holding the session and the skill the writers share, and the plans of `count` writers of `writes` writes each, named `w0`, `w1`… */
export async function openForWriters(env: CheckEnv, count: number, writes: number): Promise<{ p: EventSourcedProvider; shared: Session; plans: WriterPlan[] }> {
  const p = env.eventSourced(await env.open());
  const shared = await p.sessions.create({ title: 'shared' });
  await p.skills.upsert({ slug: SHARED_SKILL, name: 'Shared', body: 'every writer records outcomes here' });
  const plans = Array.from({ length: count }, (_, w) => ({ name: `w${w}`, writes, sharedSessionId: shared.id, sharedSkill: SHARED_SKILL }));
  return { p, shared, plans };
}

/**
 * Runs `plans` at once on the storage of `p`; resolves every writer's reports, in plan order. With
 * `processes: false` the writers stay in this process (a process takes a while to start on a small
 * machine).
 */
export async function runWriters(env: CheckEnv, p: Provider, plans: readonly WriterPlan[], options = { processes: true }): Promise<WriterReport[][]> {
  if (options.processes && env.caps.otherProcess) {
    const target = await env.processTarget(p);
    return Promise.all(plans.map((plan) => writerProcess(target, plan)));
  }
  return Promise.all(
    plans.map(async (plan) => {
      const writer = env.caps.sharedStorage ? await env.openShared(p) : p;
      const lines: WriterReport[] = [];
      await runMixedWriter(writer, plan, (line) => lines.push(line));
      return lines;
    }),
  );
}

/** Runs one writer process to its end; fails on any output to stderr or an exit other than 0. */
function writerProcess(target: ProcessTarget, plan: WriterPlan): Promise<WriterReport[]> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(target), JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: [] as string[], stderr: [] as string[] };
  for (const stream of ['stdout', 'stderr'] as const) child[stream].setEncoding('utf8').on('data', (chunk: string) => output[stream].push(chunk));
  const exit = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return exit.then((code) => {
    expect({ code, stderr: output.stderr.join('') }, `writer ${plan.name}`).toEqual({ code: 0, stderr: '' });
    const lines = output.stdout.join('').split('\n');
    return lines.flatMap((line) => (line === '' ? [] : [JSON.parse(line) as WriterReport]));
  });
}
