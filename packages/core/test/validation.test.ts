import { describe, expect, it } from 'vitest';
import { createInMemoryProvider, LIMITS, ValidationError } from '../src/index.js';

describe('input validation', () => {
  const cases: [string, (p: ReturnType<typeof createInMemoryProvider>) => Promise<unknown>, string][] = [
    ['unknown role', (p) => p.sessions.appendTurn({ sessionId: 's', role: 'robot' as 'user', content: 'x' }), 'role'],
    ['wrong content type', (p) => p.sessions.appendTurn({ sessionId: 's', role: 'user', content: 42 as unknown as string }), 'content'],
    ['NUL in a title', (p) => p.sessions.create({ title: 'a\u0000b' }), 'title'],
    ['bad createdAt', (p) => p.sessions.create({ createdAt: 'soon' }), 'createdAt'],
    ['empty slug', (p) => p.skills.upsert({ slug: '' }), 'slug'],
    ['oversized body', (p) => p.skills.upsert({ slug: 'x', body: 'b'.repeat(LIMITS.longText + 1) }), 'body'],
    ['tags not an array', (p) => p.skills.upsert({ slug: 'x', tags: 'ops' as unknown as string[] }), 'tags'],
    ['NUL in a tag', (p) => p.skills.upsert({ slug: 'x', tags: ['a\u0000'] }), 'tags.0'],
    ['negative syncVersion', (p) => p.skills.upsert({ slug: 'x', syncVersion: -1 }), 'syncVersion'],
    ['NUL in a scope label', (p) => p.memory.write({ content: 'c', scope: ['\u0000'] }), 'scope.0'],
    ['empty memory content', (p) => p.memory.write({ content: '' }), 'content'],
    ['bad recall mode', (p) => p.memory.recall({ mode: 'fuzzy' as 'lexical' }), 'mode'],
    ['semantic recall without embedder', (p) => p.memory.recall({ query: 'x', mode: 'semantic' }), 'mode'],
    ['a lone surrogate in content', (p) => p.memory.write({ content: 'a\uD800b' }), 'content'],
    ['a lone low surrogate in a slug', (p) => p.skills.upsert({ slug: '\uDC00x' }), 'slug'],
    ['bad outcome', (p) => p.skills.recordOutcome('x', { success: 'yes' as unknown as boolean }), 'success'],
  ];

  for (const [name, call, field] of cases) {
    it(`refuses ${name} naming ${field}, appending nothing`, async () => {
      const p = createInMemoryProvider();
      const error = await call(p).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect(await p.log.head('state')).toBe(0);
    });
  }
});
