/** `runLogConformance`: check A29 of docs/conformance.md, split into focused tests. */
import type { Clock, Log } from '@agentstate/core';
import { describe, it } from 'vitest';
import { DEFAULT_CHECK_TIMEOUT, type LogFactory, type LogSuiteOptions } from './factory.js';
import { logChecks } from './log/checks.js';

/**
 * Registers the log conformance suite for `factory` in the calling test file. Each check runs on a
 * fresh log from `factory.create()`, destroyed afterwards. Checks that pin event times need
 * `injectableClock`.
 *
 * @example
 * ```ts
 * import { InMemoryLog } from '@agentstate/core';
 * import { runLogConformance } from '@agentstate/testing';
 *
 * runLogConformance({ name: 'InMemoryLog', create: async (options) => new InMemoryLog(options) });
 * ```
 */
export function runLogConformance(factory: LogFactory, options: LogSuiteOptions = {}): void {
  const timeout = options.timeout ?? DEFAULT_CHECK_TIMEOUT;
  const injectableClock = factory.capabilities?.injectableClock ?? true;

  describe(`agentstate log conformance: ${factory.name}`, () => {
    for (const check of logChecks) {
      it(check.name, { timeout }, async (ctx) => {
        if (check.needs?.includes('injectableClock') && !injectableClock) ctx.skip(`${factory.name} lacks injectableClock`);
        const opened: Log[] = [];
        const env = {
          injectableClock,
          async open(logOptions?: { clock?: Clock }) {
            const log = await factory.create(logOptions);
            opened.push(log);
            return log;
          },
        };
        let failed = true;
        try {
          await check.run(env);
          failed = false;
        } finally {
          for (const log of opened.reverse()) {
            await factory.destroy?.(log).catch((error: unknown) => {
              if (!failed) throw error;
            });
          }
        }
      });
    }
  });
}
