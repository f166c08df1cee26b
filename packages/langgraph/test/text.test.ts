import { InMemoryStore } from '@langchain/langgraph-checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexText, textsAtPath, tokenizePath } from '../src/text.js';

const PATHS = [
  '$',
  'title',
  'meta.author',
  'tags[*]',
  'tags[0]',
  'tags[-1]',
  'items[*].name',
  '*',
  'meta.*',
  '{title,meta.author}',
  'missing',
  'items[5].name',
];

/** The texts LangGraph's InMemoryStore embeds for one put, caught from its embeddings. */
async function referenceTexts(value: Record<string, unknown>, fields: string[]): Promise<string[]> {
  const caught: string[] = [];
  const embeddings = {
    embedDocuments: async (texts: string[]) => {
      caught.push(...texts);
      return texts.map(() => [1, 0]);
    },
    embedQuery: async () => [1, 0],
  };
  const store = new InMemoryStore({ index: { dims: 2, embeddings: embeddings as never, fields } });
  await store.put(['ns'], 'k', value);
  return caught;
}

const text = fc.constantFrom('alpha', 'beta gamma', '', 'δ');
const value = fc.record(
  {
    title: fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)),
    meta: fc.record({ author: fc.oneof(text, fc.integer()), year: fc.integer() }, { requiredKeys: [] }),
    tags: fc.array(text, { maxLength: 3 }),
    items: fc.array(fc.record({ name: text }), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

describe('index text', () => {
  it('splits paths as LangGraph does', () => {
    expect(tokenizePath('chapters[*].content')).toEqual(['chapters', '[*]', 'content']);
    expect(tokenizePath('{a,b.c}.d')).toEqual(['{a,b.c}', 'd']);
    expect(tokenizePath('')).toEqual([]);
  });

  it('reads the same texts as LangGraph InMemoryStore embeds, for any value and field path', async () => {
    await fc.assert(
      fc.asyncProperty(value, fc.subarray(PATHS, { minLength: 1 }), async (v, fields) => {
        const ours = new Set(fields.flatMap((field) => textsAtPath(v, field)));
        expect(ours).toEqual(new Set(await referenceTexts(v, fields)));
      }),
      { numRuns: 300 },
    );
  });

  it('joins the texts of every field, skipping empty ones', () => {
    expect(indexText({ a: 'one', b: ['two', ''], c: 3 }, ['a', 'b[*]', 'c', 'none'])).toBe('one\ntwo\n3');
    expect(indexText({ a: '' }, ['a'])).toBe('');
    expect(indexText({ a: 1 }, ['$'])).toBe('{\n  "a": 1\n}');
  });
});
