/**
 * Hostile input: FTS5 syntax, quotes, NUL, very long strings, SQL fragments,
 * emoji and right-to-left text in every text field and every query. Each is
 * stored and found literally, or refused with a ValidationError; nothing
 * ever surfaces a raw SQLite error.
 */
import { describe, expect, it } from 'vitest';
import { isAgentStateError, LIMITS, ValidationError } from '@agentstate/core';
import { matchesText } from '@agentstate/core/backend';
import { openSqlite } from '../src/index.js';

const HOSTILE = [
  '"',
  '""',
  "'",
  "'); DROP TABLE memory; --",
  'Robert"); DELETE FROM events WHERE ("1"="1',
  '* OR 1=1',
  'NEAR(a b, 3)',
  'a AND b OR NOT c',
  '^start',
  'col:value',
  '-minus +plus',
  '(((',
  ')',
  '{x y}',
  'x*',
  '\\',
  '%_%',
  '😀 👩‍💻 🇵🇹',
  'שלום עולם',
  'مرحبا بالعالم',
  '\u202Eevil\u202C',
  '\uFEFFbom',
  'tab\tnew\nline\rcr',
  'ﬁ ﬂ Ⅻ ²',
  '',
];

function ok(error: unknown): void {
  // The only failure allowed is a typed one; a raw driver error fails the test.
  expect(isAgentStateError(error), `unexpected ${String(error)}`).toBe(true);
}

describe('hostile input', () => {
  it('is stored and found literally in every text field', async () => {
    const p = await openSqlite(':memory:');
    try {
      for (const [i, text] of HOSTILE.entries()) {
        const scope = [`l:${text}`, `${text}/`];
        const s = await p.sessions.create({ title: text, model: text, id: text === '' ? undefined : `s-${i}-${text}` });
        expect(await p.sessions.get(s.id)).toMatchObject({ title: text, model: text });
        const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'tool', content: text });
        expect((await p.sessions.turns(s.id))[0]).toMatchObject({ id: turn.id, content: text });

        // Slugs have their own alphabet (B41): the hostile text goes in every other field.
        const slug = `k-${i}`;
        const skill = await p.skills.upsert({ slug, name: text, body: text, tags: [text, text], check: text, scope });
        expect(await p.skills.get(slug, { scope })).toMatchObject({ id: skill.id, name: text, body: text, tags: [text, text], check: text, scope });
        expect((await p.skills.list({ scope })).map((k) => k.id)).toEqual([skill.id]);
        expect((await p.skills.list({ scope: scope.slice(0, 1), includeDescendants: true })).map((k) => k.id)).toContain(skill.id);

        const item = await p.memory.write({ content: text === '' ? 'x' : text, kind: text, source: text, scope, id: `m-${i}-${text}` });
        expect(await p.memory.get(item.id)).toMatchObject({ content: item.content, kind: text, source: text, scope });
        const recalled = await p.memory.recall({ query: text, scope, kinds: [text] });
        expect(recalled.map((h) => h.id)).toEqual(matchesText(text, item.content) ? [item.id] : []);
      }
      // Every query, against everything stored: the exact docs/contract.md §5 answer, never an error.
      const all = await p.memory.recall({ limit: 1000 });
      for (const query of HOSTILE) {
        const expected = all
          .filter((m) => matchesText(query, m.content))
          .map((m) => m.id)
          .sort();
        expect((await p.memory.recall({ query, limit: 1000 })).map((h) => h.id).sort()).toEqual(expected);
        expect((await p.memory.recall({ query, limit: 1000, order: 'relevance', match: 'any' })).length).toBeGreaterThanOrEqual(expected.length);
        await p.skills.search(query, { order: 'relevance' });
        await p.skills.search(query, { scope: [`project:${query}`], includeParentScopes: true });
      }
    } finally {
      await p.close();
    }
  });

  it('refuses NUL and oversized text with a ValidationError, writing nothing', async () => {
    const p = await openSqlite(':memory:');
    try {
      const head = await p.log.head('state');
      const attempts = [
        () => p.sessions.create({ title: 'a\u0000b' }),
        () => p.memory.write({ content: 'x'.repeat(LIMITS.longText + 1) }),
        () => p.memory.write({ content: 'ok', kind: 'k\u0000' }),
        () => p.skills.upsert({ slug: 'a\u0000' }),
        () => p.skills.upsert({ slug: 's', tags: ['t'.repeat(LIMITS.shortText + 1)] }),
        () => p.memory.recall({ query: 'q\u0000' }),
        () => p.memory.recall({ query: 'q'.repeat(LIMITS.query + 1) }),
        () => p.skills.search('\u0000'),
        () => p.memory.write({ content: 'lone \uD800 surrogate' }),
        () => p.sessions.create({ title: '\uDC00' }),
      ];
      for (const attempt of attempts) await expect(attempt()).rejects.toBeInstanceOf(ValidationError);
      expect(await p.log.head('state')).toBe(head);
    } finally {
      await p.close();
    }
  });

  it('stores and finds text at the size limit', async () => {
    const p = await openSqlite(':memory:');
    try {
      const long = `${'deploy '.repeat(Math.floor((LIMITS.longText - 20) / 7))}needle`;
      const oneToken = 'z'.repeat(LIMITS.longText);
      const a = await p.memory.write({ content: long });
      const b = await p.memory.write({ content: oneToken });
      expect((await p.memory.recall({ query: 'needle' })).map((h) => h.id)).toEqual([a.id]);
      expect((await p.memory.recall({ query: 'zzzz' })).map((h) => h.id)).toEqual([b.id]);
      expect((await p.memory.get(b.id)).content.length).toBe(LIMITS.longText);
      const query = `${'z'.repeat(LIMITS.query)}`;
      expect((await p.memory.recall({ query })).map((h) => h.id)).toEqual([b.id]);
    } finally {
      await p.close();
    }
  });

  it('answers bad calls with typed errors', async () => {
    const p = await openSqlite(':memory:');
    try {
      const calls: Array<() => Promise<unknown>> = [
        () => p.sessions.get(''),
        () => p.sessions.turns('missing', { limit: -1 }),
        () => p.sessions.list({ limit: 1.5 }),
        () => p.skills.get('\u0000'),
        () => p.memory.recall({ limit: 0 }),
        () => p.memory.recall({ kinds: [''] }),
        () => p.memory.recall({ scope: [7 as unknown as string] }),
        () => p.log.append({ stream: '', type: 'x', payload: 1 }),
        () => p.log.append({ stream: 's', type: 'x', payload: 10n as unknown }),
        () => p.log.saveSnapshot({ stream: 's', seq: -1, data: '' }),
        () => p.log.head({} as unknown as string),
        () => p.log.read({ stream: 'state', limit: '2' as unknown as number }),
        () => p.log.read({ stream: 'state', afterSeq: -1 }),
        () => p.log.latestSnapshot('state', { upToSeq: 1.5 }),
        () => p.log.append({ stream: 'state', type: 'session.created', payload: {} }),
        () => p.sessions.create({ createdAt: '2026-02-30' }),
      ];
      for (const call of calls) await call().catch(ok);
    } finally {
      await p.close();
    }
  });
});
