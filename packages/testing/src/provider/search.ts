/** S1–S8: transcript search (`sessions.search`), and the meaning of recall and search scores; X20: the embedder's related words. */
import { type Embedder, NotFoundError, type Provider, type SearchSessionsOptions, type TurnHit, type TurnInput, ValidationError } from '@agentstate/core';
import { expect } from 'vitest';
import { conceptEmbedder } from '../suite/concept-embedder.js';
import { expectError } from '../suite/expect-error.js';
import { says, stateHead } from '../suite/fixtures.js';
import { checks, embedding, fresh, type ProviderCheck } from '../suite/harness.js';

/** Two sessions with short transcripts; returns their ids and turn ids in order. */
async function transcripts(p: Provider): Promise<{ a: string; b: string; turnsA: string[]; turnsB: string[] }> {
  const a = (await p.sessions.create({ title: 'trip' })).id;
  const b = (await p.sessions.create({ title: 'ops' })).id;
  const append = async (sessionId: string, turns: TurnInput[]) => {
    const appended: string[] = [];
    for (const turn of turns) appended.push((await p.sessions.appendTurn({ sessionId, ...turn })).id);
    return appended;
  };
  const car = [says('my car makes a noise'), says('which noise does the car make', 'assistant'), says('a rattle when braking')];
  const turnsA = await append(a, [...car, says('check the brake pads', 'assistant')]);
  const turnsB = await append(b, [says('you run deployments', 'system'), says('deploy the car rental site'), says('deployed version 7', 'tool')]);
  return { a, b, turnsA, turnsB };
}

const ids = (hits: readonly TurnHit[]): string[] => hits.map((h) => h.turn.id);

/**
 * An embedder that relates `pet` to `kitten` and puts every text with `pet` at right angles to
 * every text without it: whatever a hybrid hit scores then comes from its lexical leg alone.
 */
function relatingEmbedder(): Embedder {
  return {
    id: 'agentstate-testing/related@1',
    dimensions: 2,
    async embed(texts) {
      return texts.map((text) => (/\bpet\b/i.test(text) ? Float32Array.of(1, 0) : Float32Array.of(0, 1)));
    },
    async relatedTokens(tokens) {
      return tokens.includes('pet') ? ['kitten'] : [];
    },
  };
}

export const searchChecks: ProviderCheck[] = checks([], {
  'S1 lexical search finds live turns newest first, each with its session and one turn either side': fresh(async (p) => {
    const { a, b, turnsA, turnsB } = await transcripts(p);
    const hits = await p.sessions.search({ query: 'car', mode: 'lexical' });
    expect(ids(hits)).toEqual([turnsB[1], turnsA[1], turnsA[0]]);
    const transcriptA = await p.sessions.turns(a);
    const transcriptB = await p.sessions.turns(b);
    expect(hits[0]).toEqual({ turn: transcriptB[1], session: await p.sessions.get(b), score: 1, before: [transcriptB[0]], after: [transcriptB[2]] });
    expect(hits[1]).toEqual({ turn: transcriptA[1], session: await p.sessions.get(a), score: 1, before: [transcriptA[0]], after: [transcriptA[2]] });
    expect(hits[2]).toMatchObject({ before: [], after: [transcriptA[1]] });
    expect(await p.sessions.search({ query: 'CÁR noise', mode: 'lexical' })).toHaveLength(2);
    expect(await p.sessions.search({ query: '?!', mode: 'lexical' })).toEqual([]);
    expect(ids(await p.sessions.search({ mode: 'lexical', limit: 2 }))).toEqual([turnsB[2], turnsB[1]]);
  }),
  'S2 search narrows by session and role, skips deleted sessions, and an unknown session is NotFoundError': fresh(async (p) => {
    const { a, b, turnsA, turnsB } = await transcripts(p);
    expect(ids(await p.sessions.search({ query: 'car', sessionId: a, mode: 'lexical' }))).toEqual([turnsA[1], turnsA[0]]);
    expect(ids(await p.sessions.search({ query: 'car', roles: ['user'], mode: 'lexical' }))).toEqual([turnsB[1], turnsA[0]]);
    expect(await p.sessions.search({ query: 'car', roles: [], mode: 'lexical' })).toEqual([]);
    await p.sessions.delete(b);
    expect(ids(await p.sessions.search({ query: 'car', mode: 'lexical' }))).toEqual([turnsA[1], turnsA[0]]);
    await expectError(() => p.sessions.search({ query: 'car', sessionId: b }), NotFoundError, 'deleted session');
    await expectError(() => p.sessions.search({ query: 'car', sessionId: 'missing' }), NotFoundError, 'unknown session');
    expect(turnsB).toHaveLength(3);
  }),
  'S3 context is a number for both sides or { before, after }, clipped at the transcript ends': fresh(async (p) => {
    const { a, turnsA } = await transcripts(p);
    const t = await p.sessions.turns(a);
    const search = (context: SearchSessionsOptions['context']) => p.sessions.search({ query: 'rattle', mode: 'lexical', context });
    expect(ids(await search(0))).toEqual([turnsA[2]]);
    expect(await search(0)).toMatchObject([{ before: [], after: [] }]);
    expect(await search(5)).toMatchObject([{ before: [t[0], t[1]], after: [t[3]] }]);
    expect(await search({ before: 1 })).toMatchObject([{ before: [t[1]], after: [t[3]] }]);
    expect(await search({ before: 0, after: 0 })).toMatchObject([{ before: [], after: [] }]);
  }),
  'S4 relevance order ranks by term frequency; match any, minScore and limit act as in recall': fresh(async (p) => {
    const { turnsA, turnsB } = await transcripts(p);
    const ranked = await p.sessions.search({ query: 'car noise', mode: 'lexical', order: 'relevance' });
    expect(ids(ranked).sort()).toEqual([turnsA[0], turnsA[1]].sort());
    for (const hit of ranked) expect(hit.score).toBeGreaterThan(0);
    const any = await p.sessions.search({ query: 'car noise', mode: 'lexical', order: 'relevance', match: 'any' });
    expect([any.length, ids(any)[2]]).toEqual([3, turnsB[1]]);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', limit: 1 })).toHaveLength(1);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', order: 'relevance', minScore: 1 })).toEqual([]);
  }),
  'S5 sessions without a scope are global: a scope filter admits them exactly at the global scope or with its descendants': fresh(async (p) => {
    await transcripts(p);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', scope: [] })).toHaveLength(3);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', scope: [], includeDescendants: true })).toHaveLength(3);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', scope: ['project:x'] })).toEqual([]);
    expect(await p.sessions.search({ query: 'car', mode: 'lexical', scope: ['project:x'], includeDescendants: true })).toEqual([]);
  }),
  'S6 with an embedder, search is hybrid by default and semantic search finds turns by meaning': embedding(conceptEmbedder, async (p) => {
    const { a, b, turnsA, turnsB } = await transcripts(p);
    const sedan = await p.sessions.appendTurn({ sessionId: a, role: 'assistant', content: 'automobile insurance' });
    // minScore alone cuts semantic hits: 0.5 is the concept embedder's `similarityThreshold`.
    const close = { mode: 'semantic', minScore: 0.5 } as const;
    const semantic = await p.sessions.search({ query: 'vehicle', ...close });
    expect(ids(semantic)).toEqual([sedan.id]);
    expect(semantic[0]!.score).toBeGreaterThanOrEqual(0.5);
    expect(semantic[0]).toMatchObject({ session: { id: a }, before: [{ id: turnsA[3] }], after: [] });
    expect(await p.sessions.search({ query: 'vehicle', mode: 'lexical' })).toEqual([]);
    expect(ids(await p.sessions.search({ query: 'vehicle', ...close, roles: ['assistant'] }))).toEqual([sedan.id]);
    expect(await p.sessions.search({ query: 'vehicle', ...close, roles: ['user'] })).toEqual([]);
    expect(await p.sessions.search({ query: 'vehicle', ...close, sessionId: b })).toEqual([]);
    // Without minScore every turn that shares a concept with the query is a hit, the closest first;
    // the others are no match.
    const nearest = await p.sessions.search({ query: 'vehicle', mode: 'semantic', limit: 50 });
    expect([nearest[0]!.turn.id, ids(nearest).sort()]).toEqual([sedan.id, [sedan.id, turnsA[0], turnsA[1], turnsB[1]].sort()]);
    const hybrid = await p.sessions.search({ query: 'automobile car' });
    expect([hybrid[0]!.turn.id, ids(hybrid)]).toEqual([sedan.id, expect.arrayContaining([turnsA[0], turnsA[1], turnsB[1]])]);
    expect(hybrid[0]!.score).toBeGreaterThan(hybrid[hybrid.length - 1]!.score);
  }),
  'S7 bad search options are ValidationError naming the field, and a search appends nothing': fresh(async (p) => {
    await transcripts(p);
    const before = await stateHead(p);
    const cases: [SearchSessionsOptions, string][] = [
      [{ context: -1 }, 'context'],
      [{ context: { before: 51 } }, 'context'],
      [{ roles: ['narrator' as 'user'] }, 'roles'],
      [{ limit: 0 }, 'limit'],
      [{ mode: 'fuzzy' as 'lexical' }, 'mode'],
      [{ sessionId: '' }, 'sessionId'],
      [{ query: 'a\u0000b' }, 'query'],
    ];
    for (const [options, field] of cases) {
      expect((await expectError(() => p.sessions.search(options), ValidationError, field)).field.split('.')[0], field).toBe(field);
    }
    expect(await stateHead(p)).toBe(before);
  }),
  'S8 scores mean the same in recall and search: in (0, 1], only for what matches, cut by minScore alone, and hybrid never below lexical relevance': embedding(
    conceptEmbedder,
    async (p) => {
      const { turnsA, turnsB } = await transcripts(p);
      for (const content of ['my car makes a noise', 'check the brake pads', 'you run deployments', 'zyzzyva']) await p.memory.write({ content });
      // No turn or item shares a word or a concept with the query: none matches, whatever minScore.
      for (const mode of ['semantic', 'hybrid'] as const) {
        expect(await p.sessions.search({ query: 'kitten', mode, limit: 50 }), mode).toEqual([]);
        expect(await p.memory.recall({ query: 'kitten', mode, limit: 50 }), mode).toEqual([]);
      }
      expect(turnsA.length + turnsB.length).toBe(7);
      for (const mode of ['lexical', 'semantic', 'hybrid'] as const) {
        for (const query of ['car noise', 'automobile', 'deploy the brake']) {
          let previous: { recall: string[]; search: string[] } | undefined;
          for (const minScore of [0, 0.2, 0.5, 0.8, 1]) {
            const options = { query, mode, order: 'relevance', minScore, limit: 50 } as const;
            const recalled = await p.memory.recall(options);
            const found = await p.sessions.search(options);
            for (const { score } of [...recalled, ...found]) expect([score >= minScore, score <= 1], `${mode} ${query}: ${score}`).toEqual([true, true]);
            const now = { recall: recalled.map((h) => h.id), search: ids(found) };
            // Raising minScore never adds a hit.
            if (previous) {
              expect(previous.recall, `${mode} ${query} ${minScore}`).toEqual(expect.arrayContaining(now.recall));
              expect(previous.search, `${mode} ${query} ${minScore}`).toEqual(expect.arrayContaining(now.search));
            }
            previous = now;
          }
        }
      }
      // With the default lexical weight 1, hybrid never scores an item below its lexical relevance score.
      const hybrid = new Map((await p.memory.recall({ query: 'car noise', mode: 'hybrid', limit: 50 })).map((h) => [h.id, h.score]));
      const lexical = await p.memory.recall({ query: 'car noise', mode: 'lexical', order: 'relevance' });
      expect(lexical.length).toBe(1);
      for (const h of lexical) expect(hybrid.get(h.id)).toBeGreaterThanOrEqual(h.score - 1e-9);
    },
  ),
  "X20 hybrid recall and search also match the embedder's related words in their lexical leg, only when tokens may match any": embedding(
    relatingEmbedder,
    async (p) => {
      const kitten = await p.memory.write({ content: 'the kitten sleeps on the sofa' });
      await p.memory.write({ content: 'the dog barks at night' });
      const s = await p.sessions.create({});
      const turn = await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'my kitten is ill' });
      await p.sessions.appendTurn({ sessionId: s.id, role: 'user', content: 'the dog is fine' });
      const options = { query: 'pet', order: 'relevance', limit: 10 } as const;
      const recalled = await p.memory.recall({ ...options, mode: 'hybrid' });
      // The related word alone makes the match: the other item shares neither a word nor a meaning.
      expect(recalled.map((h) => [h.id, h.score > 0])).toEqual([[kitten.id, true]]);
      expect((await p.sessions.search({ ...options, mode: 'hybrid' })).map((h) => [h.turn.id, h.score > 0])).toEqual([[turn.id, true]]);
      // Every token must match: a related word is no substitute, so nothing matches.
      expect(await p.memory.recall({ ...options, mode: 'hybrid', match: 'all' })).toEqual([]);
      expect(await p.sessions.search({ ...options, mode: 'hybrid', match: 'all' })).toEqual([]);
      // Lexical and semantic mode never use related words.
      expect([await p.memory.recall({ ...options, mode: 'lexical', match: 'any' }), await p.memory.recall({ ...options, mode: 'semantic' })]).toEqual([[], []]);
    },
  ),
});
