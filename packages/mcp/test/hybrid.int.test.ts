/**
 * Hybrid recall through the server with its default, offline embedder:
 * a question in other words finds the fact, with scores.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectInMemory, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let client: Client;

beforeAll(async () => {
  tmp = tempDir();
  client = await connectInMemory(['--db', tmp.db, '--scope', 'project:web']);
  for (const content of ['The user prefers dark mode in every editor', 'Deploy to production on Friday afternoons', 'The invoice total includes VAT']) {
    await call(client, 'remember', { content });
  }
});

afterAll(async () => {
  await client?.close();
  tmp?.cleanup();
});

describe('recall with the offline embedder', () => {
  it('is hybrid by default, ranking by meaning with scores', async () => {
    const { hits } = await call(client, 'recall', { query: 'does the user like a dark theme', order: 'relevance' });
    expect(hits[0].content).toBe('The user prefers dark mode in every editor');
    for (const h of hits) expect(h.score).toBeGreaterThan(0);
    for (const h of hits) expect(h.score).toBeLessThanOrEqual(1);
  });

  it('recalls semantically what shares no word with the query', async () => {
    const query = { query: 'customer likes black themes in editors', mode: 'semantic', order: 'relevance' };
    // minScore alone cuts: 0.4 keeps this paraphrase (cosine 0.46 with the static table) and drops the unrelated item (0.02).
    const { hits } = await call(client, 'recall', { ...query, minScore: 0.4 });
    expect(hits.map((h: { content: string }) => h.content)).toContain('The user prefers dark mode in every editor');
    expect(hits.map((h: { content: string }) => h.content)).not.toContain('The invoice total includes VAT');
    const { hits: nearest } = await call(client, 'recall', query);
    expect(nearest[0].content).toBe('The user prefers dark mode in every editor');
    expect(nearest.map((h: { content: string }) => h.content)).toContain('The invoice total includes VAT');
  });
});
