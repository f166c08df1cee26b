/**
 * The inspector's API over a PostgreSQL schema (the test cluster of
 * packages/postgres): the same answers as over a SQLite file, no file sizes
 * and no `verify`, and live updates from the log's subscription.
 */
import { openPostgres, type PostgresProvider } from '@agentstate/postgres';
import { serveUi, type UiHandle } from '@agentstate/ui';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema, testServer } from '../../postgres/test/cluster.js';

let server: string;
let schema: string;
let db: PostgresProvider;
let ui: UiHandle;

beforeAll(async () => {
  server = (await testServer()).url;
  schema = freshSchema('ui');
  db = await openPostgres(server, { schema });
  const session = await db.sessions.create({ title: 'On the server', scope: ['fleet'] });
  await db.sessions.appendTurn({ sessionId: session.id, role: 'user', content: 'Deploy the fleet' });
  await db.memory.write({ content: 'The fleet deploys on Fridays', kind: 'fact' });
  ui = await serveUi(db, { port: 0 });
});

afterAll(async () => {
  await ui?.close();
  await db?.close();
  if (server && schema) await dropSchema(server, schema);
});

const api = async <T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${ui.url}api/${path}`, init);
  return { status: res.status, body: (await res.json()) as T };
};

describe('the inspector over PostgreSQL', () => {
  it('answers the views from the schema', async () => {
    expect((await api<{ backend: string; head: number; canVerify: boolean }>('overview')).body).toMatchObject({
      backend: 'postgres',
      head: 3,
      canVerify: true,
    });
    const sessions = await api<{ items: Array<{ title: string }> }>('sessions?namespace=fleet');
    expect(sessions.body.items.map((s) => s.title)).toEqual(['On the server']);
    const recall = await api<Array<{ content: string; score: number }>>('recall?q=fleet%20fridays&mode=lexical');
    expect(recall.body.map((h) => h.content)).toEqual(['The fleet deploys on Fridays']);
    const counts = await api<{ seq: number; sessions: { live: number }; turns: number; memory: { live: number } }>('counts?seq=2');
    expect(counts.body).toMatchObject({ seq: 2, sessions: { live: 1 }, turns: 1, memory: { live: 0 } });
    const health = await api<{ sizes: unknown }>('health');
    expect(health.body.sizes).toBeNull();
    const types = await api<{ countsByType: Record<string, number> }>('health/types');
    expect(types.body.countsByType).toEqual({ 'memory.written': 1, 'session.created': 1, 'session.turn_appended': 1 });
    const verify = await api<{ ok: boolean }>('verify', { method: 'POST' });
    expect(verify.status).toBe(200);
    expect(verify.body.ok).toBe(true);
  });

  it('pushes the new head to the live feed as events commit', async () => {
    const controller = new AbortController();
    const res = await fetch(`${ui.url}api/live`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const heads: number[] = [];
    const decoder = new TextDecoder();
    const readUntil = async (head: number): Promise<void> => {
      while (!heads.includes(head)) {
        const { value, done } = await reader.read();
        if (done) throw new TypeError('the feed ended');
        for (const m of decoder.decode(value).matchAll(/data: (\{.*\})/g)) heads.push((JSON.parse(m[1]!) as { head: number }).head);
      }
    };
    try {
      await readUntil(3);
      await db.memory.write({ content: 'Written while the feed listens' });
      await readUntil(4);
    } finally {
      controller.abort();
    }
    expect(heads).toEqual([3, 4]);
  });
});
