/**
 * Hostile input, as for SQLite: tsquery and FTS syntax, quotes, NUL, SQL
 * fragments, placeholders, LIKE and regex patterns, emoji and
 * right-to-left text in every text field, metadata and filter, checkpoint
 * key and query. Each is stored and found literally, or refused with a
 * ValidationError writing nothing; nothing surfaces a raw driver error.
 * And inputs at the contract's limits that PostgreSQL's full-text types
 * cannot hold as they are: a token longer than a lexeme may be, and a
 * record with more distinct tokens than a `tsvector` holds.
 */
import { describe, expect, it } from 'vitest';
import { isAgentStateError, LIMITS, ValidationError } from '@agentstate/core';
import { matchesText } from '@agentstate/core/backend';
import { fresh } from './helpers.js';

const HOSTILE = [
  '"',
  '""',
  "'",
  "'); DROP TABLE memory; --",
  'Robert"); DELETE FROM events WHERE ("1"="1',
  "$1 $$ $tag$ ::text E'\\x00'",
  '* OR 1=1',
  'a & b | !c <-> d:* <2>',
  "'a':* & !'b'",
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
  '.*[a-z]+$',
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

describe('PostgreSQL hostile input', () => {
  it('is stored and found literally in every text field, metadata and filter', async () => {
    const { provider: p, close } = await fresh();
    for (const [i, text] of HOSTILE.entries()) {
      const scope = [`l:${text}`, `${text}/`];
      const metadata = { [text === '' ? 'empty' : text]: text, nested: { [`k${text}`]: [text, i] } };
      const s = await p.sessions.create({ title: text, model: text, metadata, id: text === '' ? undefined : `s-${i}-${text}` });
      expect(await p.sessions.get(s.id)).toMatchObject({ title: text, model: text, metadata });
      const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'tool', content: text, metadata });
      expect((await p.sessions.turns(s.id))[0]).toMatchObject({ id: turn.id, content: text, metadata });

      const slug = `k-${i}`;
      const skill = await p.skills.upsert({ slug, name: text, body: text, tags: [text, text], check: text, scope });
      expect(await p.skills.get(slug, { scope })).toMatchObject({ id: skill.id, name: text, body: text, tags: [text, text], check: text, scope });
      expect((await p.skills.list({ scope })).map((k) => k.id)).toEqual([skill.id]);
      expect((await p.skills.list({ scope: scope.slice(0, 1), includeDescendants: true })).map((k) => k.id)).toContain(skill.id);

      const item = await p.memory.write({ content: text === '' ? 'x' : text, kind: text, source: text, scope, metadata, id: `m-${i}-${text}` });
      expect(await p.memory.get(item.id)).toMatchObject({ content: item.content, kind: text, source: text, scope, metadata });
      const recalled = await p.memory.recall({ query: text, scope, kinds: [text] });
      expect(recalled.map((h) => h.id)).toEqual(matchesText(text, item.content) ? [item.id] : []);
      const field = text === '' ? 'empty' : text;
      if (!field.includes('.')) {
        expect((await p.memory.recall({ scope, where: { [field]: text } })).map((h) => h.id)).toEqual([item.id]);
        expect((await p.memory.recall({ scope, where: { [field]: { $in: [text, `${text}%`], $gte: text } } })).map((h) => h.id)).toEqual([item.id]);
        expect(await p.memory.recall({ scope, where: { [field]: `${text}%` } })).toEqual([]);
      }

      const key = { threadId: `t-${i}-${text || 'empty'}`, namespace: text, checkpointId: `c-${text || 'empty'}` };
      await p.checkpoints.put({ ...key, checkpoint: { [text]: [text, metadata] }, metadata });
      await p.checkpoints.putWrites({ ...key, taskId: `task-${text || 'empty'}`, taskPath: text, writes: [{ idx: 0, channel: text || 'c', value: text }] });
      const tuple = await p.checkpoints.get({ threadId: key.threadId, namespace: text });
      expect(tuple?.checkpoint).toMatchObject({ ...key, checkpoint: { [text]: [text, metadata] }, metadata });
      expect(tuple?.pendingWrites.map((w) => [w.taskPath, w.channel, w.value])).toEqual([[text, text || 'c', text]]);
      expect((await p.checkpoints.list({ threadId: key.threadId, namespace: text })).map((t) => t.checkpoint.checkpointId)).toEqual([key.checkpointId]);
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
      await p.sessions.search({ query }).catch(ok);
      if (query !== '') {
        const threadId = `t-${HOSTILE.indexOf(query)}-${query}`;
        const found = await p.checkpoints.list({
          threadId,
          namespace: query,
          before: `c-${query}\u{10FFFF}`,
          metadata: { nested: { [`k${query}`]: [query, HOSTILE.indexOf(query)] } },
        });
        expect(found.map((t) => t.checkpoint.threadId)).toEqual([threadId]);
      }
    }
    await close();
  });

  it('refuses NUL, lone surrogates and oversized text with a ValidationError, writing nothing', async () => {
    const { provider: p, close } = await fresh();
    const head = await p.log.head('state');
    const attempts = [
      () => p.sessions.create({ title: 'a\u0000b' }),
      () => p.memory.write({ content: 'x'.repeat(LIMITS.longText + 1) }),
      () => p.memory.write({ content: 'ok', kind: 'k\u0000' }),
      () => p.memory.write({ content: 'ok', metadata: { 'a\u0000': 1 } }),
      () => p.memory.write({ content: 'ok', metadata: { a: 'b\u0000' } }),
      () => p.skills.upsert({ slug: 'a\u0000' }),
      () => p.skills.upsert({ slug: 's', tags: ['t'.repeat(LIMITS.shortText + 1)] }),
      () => p.memory.recall({ query: 'q\u0000' }),
      () => p.memory.recall({ query: 'q'.repeat(LIMITS.query + 1) }),
      () => p.memory.recall({ where: { 'a\u0000': 1 } }),
      () => p.skills.search('\u0000'),
      () => p.memory.write({ content: 'lone \uD800 surrogate' }),
      () => p.sessions.create({ title: '\uDC00' }),
      () => p.checkpoints.put({ threadId: 't\u0000', checkpointId: 'c', checkpoint: null, metadata: {} }),
      () => p.checkpoints.put({ threadId: 't', namespace: 'n\u0000', checkpointId: 'c', checkpoint: null, metadata: {} }),
      () => p.checkpoints.put({ threadId: 't', checkpointId: 'c', checkpoint: { k: 'v\u0000' }, metadata: {} }),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toBeInstanceOf(ValidationError);
    expect(await p.log.head('state')).toBe(head);
    await close();
  });

  it('stores any string as a snapshot\u2019s data, NUL included, and reads it back exactly', async () => {
    // Snapshot data is opaque text to the log: a codec (or a test changing one character) may put NUL in it, which a text column refuses.
    const { provider: p, close } = await fresh();
    const data = 'a\u0000b \u0000\u0000 😀 שלום \\ \u0001';
    await p.log.saveSnapshot({ stream: 'other', seq: 3, data });
    expect(await p.log.latestSnapshot('other')).toEqual({ stream: 'other', seq: 3, data });
    await p.log.saveSnapshot({ stream: 'other', seq: 3, data: `${data}!` });
    expect((await p.log.latestSnapshot('other', { upToSeq: 5 }))?.data).toBe(`${data}!`);
    await close();
  });

  it('answers bad calls with typed errors', async () => {
    const { provider: p, close } = await fresh();
    const calls: Array<() => Promise<unknown>> = [
      () => p.sessions.get(''),
      () => p.sessions.turns('missing', { limit: -1 }),
      () => p.sessions.list({ limit: 1.5 }),
      () => p.skills.get('\u0000'),
      () => p.memory.recall({ limit: 0 }),
      () => p.memory.recall({ kinds: [''] }),
      () => p.memory.recall({ scope: [7 as unknown as string] }),
      () => p.memory.recall({ where: { a: { $gt: 10n as unknown as number } } }),
      () => p.log.append({ stream: '', type: 'x', payload: 1 }),
      () => p.log.append({ stream: 's', type: 'x', payload: 10n as unknown }),
      () => p.log.append({ stream: 's\u0000', type: 'x', payload: 1 }),
      () => p.log.saveSnapshot({ stream: 's', seq: -1, data: '' }),
      () => p.log.head({} as unknown as string),
      () => p.log.read({ stream: 'state', limit: '2' as unknown as number }),
      () => p.log.read({ stream: 'state', afterSeq: -1 }),
      () => p.log.read({ stream: 'state', afterSeq: Number.MAX_SAFE_INTEGER * 4 }),
      () => p.log.latestSnapshot('state', { upToSeq: 1.5 }),
      () => p.log.append({ stream: 'state', type: 'session.created', payload: {} }),
      () => p.sessions.create({ createdAt: '2026-02-30' }),
      () => p.checkpoints.get({ threadId: '' }),
      () => p.checkpoints.list({ limit: -1 }),
      () => p.checkpoints.putWrites({ threadId: 't', checkpointId: 'c', taskId: 'x', writes: [{ idx: 2 ** 60, channel: 'c', value: 1 }] }),
    ];
    for (const call of calls) await call().catch(ok);
    await close();
  });
});

describe('PostgreSQL lexical index at the limits', () => {
  it('finds a token longer than a lexeme by any prefix, and not by a wrong one', async () => {
    const { provider, close } = await fresh();
    const long = `${'é'.repeat(1_500)}tail`;
    await provider.memory.write({ content: `start ${long} end` });
    const hits = async (query: string) => (await provider.memory.recall({ query, limit: 10 })).length;
    expect(await hits('e'.repeat(1_200))).toBe(1);
    expect(await hits(`${'e'.repeat(1_500)}ta`)).toBe(1);
    expect(await hits(`${'e'.repeat(1_500)}x`)).toBe(0);
    await close();
  });

  it('stores and finds a record with more distinct tokens than a tsvector holds', async () => {
    const { provider, close } = await fresh();
    // 160,000 distinct tokens of 4 CJK ideographs (800,000 characters): 1.9 MB of lexemes, over the 1 MB a tsvector holds.
    const ideograph = (n: number) => String.fromCodePoint(0x4e00 + (n % 1_000));
    const words = Array.from({ length: 160_000 }, (_, i) => [3, 2, 1, 0].map((k) => ideograph(Math.floor(i / 1_000 ** k))).join(''));
    const item = await provider.memory.write({ content: words.join(' ') });
    await provider.memory.write({ content: 'a small neighbour' });
    expect((await provider.memory.recall({ query: words[123_456]!, limit: 10 })).map((m) => m.id)).toEqual([item.id]);
    expect((await provider.memory.recall({ query: 'neighbour', limit: 10 })).map((m) => m.content)).toEqual(['a small neighbour']);
    expect(await provider.memory.recall({ query: 'absent', limit: 10 })).toEqual([]);
    await close();
  });
});
