/**
 * `runProviderConformance`: registers every provider check of docs/conformance.md
 * (A1–A28, B30–B43, C1–C9, I1–I8, S1–S8, T1–T9), the extra checks (X…) and the sync checks (Y…) as vitest tests.
 */
import { describe, it } from 'vitest';
import { DEFAULT_CHECK_TIMEOUT, type ProviderFactory, type ProviderSuiteOptions, type ResolvedCapabilities } from './factory.js';
import { providerChecks } from './provider/index.js';
import { Env, probeCapabilities } from './suite/harness.js';

const DEFAULT_PROPERTY_RUNS = 20;

/**
 * Registers the provider conformance suite for `factory` in the calling test file, inside one
 * `describe` block. Each check runs on a fresh provider from `factory.create()` and is destroyed
 * afterwards. A check that needs a capability the factory lacks (see {@link ProviderCapabilities})
 * is reported as skipped, with the missing capability as its note.
 *
 * @example
 * ```ts
 * import { createInMemoryProvider } from '@agentstate/core';
 * import { runProviderConformance } from '@agentstate/testing';
 *
 * runProviderConformance({ name: 'memory', create: async (options) => createInMemoryProvider(options) });
 * ```
 */
export function runProviderConformance(factory: ProviderFactory, options: ProviderSuiteOptions = {}): void {
  const timeout = options.timeout ?? DEFAULT_CHECK_TIMEOUT;
  const propertyRuns = options.propertyRuns ?? DEFAULT_PROPERTY_RUNS;
  let capabilities: Promise<ResolvedCapabilities> | undefined;

  describe(`agentstate provider conformance: ${factory.name}`, () => {
    for (const check of providerChecks) {
      if (options.only !== undefined && !options.only(check.name)) continue;
      it(check.name, { timeout }, async (ctx) => {
        capabilities ??= probeCapabilities(factory);
        const caps = await capabilities;
        const missing = (check.needs ?? []).filter((need) => !caps[need]);
        if (missing.length > 0) ctx.skip(`${factory.name} lacks ${missing.join(', ')}`);
        const env = new Env(factory, caps, propertyRuns, options.seed, (note) => ctx.skip(`${factory.name} lacks ${note}`));
        let failed = true;
        try {
          await check.run(env);
          failed = false;
        } finally {
          // A failure of the check wins over a failure to clean up after it.
          await env.dispose().catch((error: unknown) => {
            if (!failed) throw error;
          });
        }
      });
    }
  });
}
