/** W20–W27: working memory, a pinned document per scope (docs/contract.md §4, "Working memory"). */
import type { MemoryItem, Provider } from '@agentstate/core';
import {
  ConflictError,
  DEFAULT_WORKING_MEMORY_TOKENS,
  ManualClock,
  defaultTokenCounter,
  OperationConflictError,
  ReadOnlyViewError,
  STATE_STREAM,
  TokenLimitError,
  WORKING_MEMORY,
} from '@agentstate/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectError, expectInvalid } from '../suite/expect-error.js';
import { DAY, isEventSourced, T0 } from '../suite/fixtures.js';
import { checks, fresh, needing, property, type ProviderCheck } from '../suite/harness.js';
import { QUARTERS } from './context.js';

/** What a provider holds that a refused write must leave as it was: the log head, else the document. */
async function footprint(p: Provider, scope: string[]): Promise<unknown> {
  return isEventSourced(p) ? p.log.head(STATE_STREAM) : p.workingMemory.get({ scope });
}

/** One step of a document's life: replace it, append to it, or replace a marker a replace or append put there. */
type Step = { kind: 'replace'; text: string } | { kind: 'append'; text: string } | { kind: 'swap'; marker: number; text: string };

/** Words without the marker's brackets, so a marker occurs only where a step put it. */
const words = fc.array(fc.constantFrom('plan', 'ada', 'likes', 'tea', '#', '-', 'é', '\n'), { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));

const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), text: words }),
  fc.record({ kind: fc.constant('append' as const), text: words }),
  fc.record({ kind: fc.constant('swap' as const), marker: fc.nat(5), text: words }),
);

export const workingMemoryChecks: ProviderCheck[] = checks([], {
  'W20 property: for random replaces, appends and find-and-replace patches, each write returns the document the patch rule gives, one version on from the last, and get reads it back':
    fresh(async (p, env) => {
      let run = 0;
      await property(env, fc.array(arbStep, { minLength: 1, maxLength: 8 }), async (steps) => {
        run += 1;
        const scope = [`run:${run}`];
        let model: string | undefined;
        let version = 0;
        let marked = 0;
        for (const step of steps) {
          // Each replace and append carries a fresh marker; a swap names one, if the document holds it once.
          marked += 1;
          const mark = `[m${marked}]`;
          let written: MemoryItem;
          if (step.kind === 'swap') {
            const find = `[m${step.marker}]`;
            const at = model?.indexOf(find) ?? -1;
            if (model === undefined || at < 0) {
              await expectInvalid(() => p.workingMemory.patch({ scope, find, replace: step.text, counter: QUARTERS, maxTokens: 10_000 }), 'find');
              continue;
            }
            written = await p.workingMemory.patch({ scope, find, replace: `${step.text}${mark}`, counter: QUARTERS, maxTokens: 10_000 });
            model = `${model.slice(0, at)}${step.text}${mark}${model.slice(at + find.length)}`;
          } else if (step.kind === 'append') {
            written = await p.workingMemory.patch({ scope, append: `${step.text}${mark}`, counter: QUARTERS, maxTokens: 10_000 });
            model = model === undefined || model.endsWith('\n') ? `${model ?? ''}${step.text}${mark}` : `${model}\n${step.text}${mark}`;
          } else {
            written = await p.workingMemory.replace({ scope, text: `${step.text}${mark}`, counter: QUARTERS, maxTokens: 10_000 });
            model = `${step.text}${mark}`;
          }
          version += 1;
          expect(written).toMatchObject({ content: model, scope, key: WORKING_MEMORY, kind: WORKING_MEMORY, syncVersion: version });
          expect(await p.workingMemory.get({ scope })).toEqual(written);
        }
      });
    }),

  'W21 each scope has its own document: get reads exactly its scope (null when it has none), never a parent or a child, and a write keeps the item id': fresh(
    async (p) => {
      expect(await p.workingMemory.get()).toBeNull();
      const global = await p.workingMemory.replace({ text: 'global notes' });
      const ada = await p.workingMemory.replace({ scope: ['user:ada'], text: 'Ada: prefers tea' });
      expect(global.scope).toEqual([]);
      expect(await p.workingMemory.get({ scope: ['user:ada', 'chat:1'] })).toBeNull();
      expect((await p.workingMemory.get({ scope: [] }))?.content).toBe('global notes');
      const next = await p.workingMemory.patch({ scope: ['user:ada'], find: 'tea', replace: 'coffee' });
      expect(next).toMatchObject({ id: ada.id, createdAt: ada.createdAt, syncVersion: 2, content: 'Ada: prefers coffee' });
      expect(await p.memory.getByKey(WORKING_MEMORY, { scope: ['user:ada'] })).toEqual(next);
      const appended = await p.workingMemory.patch({ scope: ['user:bob'], append: 'Bob: new here' });
      expect(appended).toMatchObject({ content: 'Bob: new here', syncVersion: 1 });
    },
  ),

  'W22 over its token limit (default DEFAULT_WORKING_MEMORY_TOKENS by the default counter, or the call’s maxTokens by its counter) a write is a TokenLimitError and writes nothing; text exactly at the limit is written':
    fresh(async (p) => {
      const scope = ['user:ada'];
      await p.workingMemory.replace({ scope, text: 'start' });
      const before = await footprint(p, scope);
      const limited = await expectError(() => p.workingMemory.replace({ scope, text: 'x'.repeat(41), counter: QUARTERS, maxTokens: 10 }), TokenLimitError);
      expect(limited).toMatchObject({ field: 'text', tokens: 11, maxTokens: 10, code: 'invalid' });
      await expectError(() => p.workingMemory.patch({ scope, append: 'y'.repeat(40), counter: QUARTERS, maxTokens: 10 }), TokenLimitError);
      const counter = await defaultTokenCounter();
      const over = 'tea '.repeat(DEFAULT_WORKING_MEMORY_TOKENS + 1);
      expect(counter.count(over)).toBeGreaterThan(DEFAULT_WORKING_MEMORY_TOKENS);
      await expectError(() => p.workingMemory.replace({ scope, text: over }), TokenLimitError);
      expect(await footprint(p, scope)).toEqual(before);
      expect((await p.workingMemory.get({ scope }))?.content).toBe('start');
      expect((await p.workingMemory.replace({ scope, text: 'x'.repeat(40), counter: QUARTERS, maxTokens: 10 })).content).toBe('x'.repeat(40));
      expect((await p.workingMemory.replace({ scope, text: over, maxTokens: counter.count(over) })).content).toBe(over);
    }),

  'W23 expectedVersion is checked inside the write: 0 while the scope has none, then the document’s syncVersion; any other is a ConflictError that writes nothing; an operationId makes a write idempotent':
    fresh(async (p) => {
      const scope = ['team:core'];
      await expectError(() => p.workingMemory.replace({ scope, text: 'a', expectedVersion: 1 }), ConflictError);
      const first = await p.workingMemory.replace({ scope, text: 'a', expectedVersion: 0 });
      await expectError(() => p.workingMemory.patch({ scope, append: 'b', expectedVersion: 0 }), ConflictError);
      const before = await footprint(p, scope);
      await expectError(() => p.workingMemory.replace({ scope, text: 'b', expectedVersion: 2 }), ConflictError);
      expect(await footprint(p, scope)).toEqual(before);
      const second = await p.workingMemory.patch({ scope, append: 'b', expectedVersion: first.syncVersion, operationId: 'op-wm' });
      expect(second.content).toBe('a\nb');
      expect(await p.workingMemory.patch({ scope, append: 'b', expectedVersion: first.syncVersion, operationId: 'op-wm' }), 'a retry').toEqual(second);
      await expectError(() => p.workingMemory.patch({ scope, append: 'c', operationId: 'op-wm' }), OperationConflictError);
      expect((await p.workingMemory.get({ scope }))?.syncVersion).toBe(2);
    }),

  'W24 bad input is a ValidationError naming the field and writes nothing: a find the document holds never or twice, a patch that would empty it, a patch of neither or both shapes, empty text, an unknown key or a bad scope':
    fresh(async (p) => {
      const scope = ['user:ada'];
      await p.workingMemory.replace({ scope, text: 'tea and tea' });
      const before = await footprint(p, scope);
      await expectInvalid(() => p.workingMemory.patch({ scope, find: 'coffee', replace: 'x' }), 'find');
      await expectInvalid(() => p.workingMemory.patch({ scope, find: 'tea', replace: 'x' }), 'find');
      await expectInvalid(() => p.workingMemory.patch({ scope, find: 'tea and tea', replace: '' }), 'replace');
      await expectInvalid(() => p.workingMemory.patch({ scope }), '');
      await expectInvalid(() => p.workingMemory.patch({ scope, append: 'x', find: 'tea', replace: 'y' }), '');
      await expectInvalid(() => p.workingMemory.patch({ scope, find: 'tea and' }), '');
      await expectInvalid(() => p.workingMemory.replace({ scope, text: '' }), 'text');
      await expectInvalid(() => p.workingMemory.replace({ scope, text: 'x', extra: 1 } as never), 'extra');
      await expectInvalid(() => p.workingMemory.replace({ scope, text: 'x', maxTokens: 0 }), 'maxTokens');
      await expectInvalid(() => p.workingMemory.replace({ scope: [''], text: 'x' }), 'scope.0');
      await expectInvalid(() => p.workingMemory.get({ scope: { project: 'web' } } as never), 'scope');
      expect(await footprint(p, scope)).toEqual(before);
    }),

  'W25 recall leaves working memory out unless kinds names its kind; memory.getByKey reads it under the reserved key': fresh(async (p) => {
    const scope = ['user:ada'];
    await p.memory.write({ content: 'Ada prefers tea', scope });
    const doc = await p.workingMemory.replace({ scope, text: 'Ada prefers tea today' });
    expect((await p.memory.recall({ query: 'tea', scope })).map((hit) => hit.content)).toEqual(['Ada prefers tea']);
    expect((await p.memory.recall({})).map((hit) => hit.id)).not.toContain(doc.id);
    expect((await p.memory.recall({ query: 'tea', kinds: [WORKING_MEMORY] })).map((hit) => hit.id)).toEqual([doc.id]);
    expect((await p.memory.getByKey(WORKING_MEMORY, { scope })).id).toBe(doc.id);
  }),

  'W26 context puts the working memory of the session scope first, counted within the budget, before recalled memories and turns; working: false leaves it out, and one that does not fit gives way':
    fresh(async (p) => {
      const scope = ['user:ada'];
      await p.memory.write({ content: 'Ada prefers tea', scope });
      const doc = await p.workingMemory.replace({ scope, text: 'Plan: ask Ada about tea' });
      await p.workingMemory.replace({ scope: ['user:bob'], text: 'Bob notes' });
      const session = await p.sessions.create({ scope });
      await p.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'Does Ada like tea?' });
      const options = { maxTokens: 1000, counter: QUARTERS, recall: { limit: 2 } };
      const window = await p.sessions.context(session.id, options);
      expect(window.entries.map((entry) => entry.kind)).toEqual(['working', 'memory', 'turn']);
      expect(window.entries[0]).toEqual({ kind: 'working', tokens: QUARTERS.count(doc.content), memory: doc });
      expect(window.tokens).toBe(window.entries.reduce((sum, entry) => sum + entry.tokens, 0));
      const without = await p.sessions.context(session.id, { ...options, working: false });
      expect(without.entries.map((entry) => entry.kind)).toEqual(['memory', 'turn']);
      const tight = await p.sessions.context(session.id, { maxTokens: QUARTERS.count(doc.content) - 1, counter: QUARTERS });
      expect(tight.entries.map((entry) => entry.kind)).not.toContain('working');
      await expectInvalid(() => p.sessions.context(session.id, { maxTokens: 10, working: 'yes' } as never), 'working');
    }),

  'W27 every version is on the record: history lists each, a view of an earlier point reads the document then and refuses writes, a document a retention policy hides reads and is written as none, and a purge by text erases it':
    needing(['eventSourced', 'injectableClock'], async (env) => {
      const clock = new ManualClock(T0);
      const p = env.eventSourced(await env.open({ clock }));
      const scope = ['user:ada'];
      const first = await p.workingMemory.replace({ scope, text: 'Ada: code name Brindlewick' });
      const seq = await p.log.head(STATE_STREAM);
      await p.workingMemory.patch({ scope, append: 'Ada: prefers tea' });
      const versions = await p.history(first.id);
      expect(versions.map((v) => (v.record as MemoryItem).content)).toEqual(['Ada: code name Brindlewick', 'Ada: code name Brindlewick\nAda: prefers tea']);
      const view = await p.at({ seq });
      expect(await view.workingMemory.get({ scope })).toEqual(first);
      await expectError(() => view.workingMemory.replace({ scope, text: 'x' }), ReadOnlyViewError);
      await expectError(() => view.workingMemory.patch({ scope, append: 'x' }), ReadOnlyViewError);
      const purged = await p.purge({ matching: 'Brindlewick', reason: 'erasure request' });
      expect(purged.memory).toEqual([first.id]);
      expect(await p.workingMemory.get({ scope })).toBeNull();
      expect(JSON.stringify(await p.history(first.id))).not.toContain('Brindlewick');
      const team = await p.workingMemory.replace({ scope: ['team'], text: 'stale plan' });
      await p.retention.set({ record: 'memory', maxAge: '1d' });
      clock.advance(DAY);
      expect(await p.workingMemory.get({ scope: ['team'] })).toBeNull();
      await expectError(() => p.workingMemory.patch({ scope: ['team'], append: 'x', expectedVersion: 1 }), ConflictError);
      const fresh = await p.workingMemory.patch({ scope: ['team'], append: 'fresh plan', expectedVersion: 0 });
      expect(fresh).toMatchObject({ id: team.id, content: 'fresh plan', syncVersion: 2 });
      expect(await p.workingMemory.get({ scope: ['team'] })).toEqual(fresh);
    }),
});
