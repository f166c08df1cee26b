/**
 * A writer process of G9 and V9: `node writer-process.js <target> <plan>`, both JSON, opens a
 * provider as the {@link ProcessTarget} says, runs the mixed writer of the {@link WriterPlan} on it
 * and prints each report as a JSON line, then closes the provider. Anything else it prints (on
 * stderr) fails the check.
 */
import { type Provider, ValidationError } from '@agentstate/core';
import type { ProcessTarget } from '../factory.js';
import { runMixedWriter, type WriterPlan } from './mixed-writer.js';

const [target, plan] = process.argv.slice(2).map((arg) => JSON.parse(arg)) as [ProcessTarget, WriterPlan];
const open = ((await import(target.module)) as Record<string, unknown>)[target.open];
if (typeof open !== 'function') throw new ValidationError('open', `${target.module} has no function ${target.open}`);
const provider = (await open(...target.args)) as Provider;
try {
  await runMixedWriter(provider, plan, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));
} finally {
  await provider.close();
}
