/**
 * Several writers on one session: each call's items stay together, none is
 * lost, and a transaction sent by all of them is applied once; within one
 * process (one provider) and across processes (one SQLite file).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createInMemoryProvider } from '@agentstate/core';
import { AgentStateSession } from '@agentstate/openai-agents';
import type { AgentInputItem } from '@openai/agents-core';
import { afterAll, describe, expect, it } from 'vitest';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-openai-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const user = (content: string): AgentInputItem => ({ role: 'user', content });
const texts = (items: AgentInputItem[]) => items.map((i) => ('content' in i && typeof i.content === 'string' ? i.content : '?'));

/** Checks that the history is whole batches of three (`<batch>.1..3`) and one `once` between two of them. */
function expectWholeBatches(items: string[], batches: number): void {
  expect(items.filter((t) => t === 'once')).toEqual(['once']);
  const rest = items.filter((t) => t !== 'once');
  expect(rest).toHaveLength(batches * 3);
  expect(items.indexOf('once') % 3).toBe(0);
  for (let at = 0; at < rest.length; at += 3) {
    const batch = rest[at]!.split('.')[0];
    expect(rest.slice(at, at + 3)).toEqual([`${batch}.1`, `${batch}.2`, `${batch}.3`]);
  }
}

describe('concurrent writers on one session', () => {
  it('within one process share a provider', async () => {
    const provider = createInMemoryProvider();
    const [a, b] = [new AgentStateSession(provider, { sessionId: 'shared' }), new AgentStateSession(provider, { sessionId: 'shared' })];
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).addItems([user(`${i}.1`), user(`${i}.2`), user(`${i}.3`)])));
    const args = { operationId: 'shared-op', transaction: { type: 'append_items' as const, items: [user('once')] } };
    await Promise.all([a.applyHistoryTransaction(args), b.applyHistoryTransaction(args), a.applyHistoryTransaction(args)]);
    expectWholeBatches(texts(await b.getItems()), 20);
  });

  it('across processes share the SQLite file', async () => {
    const path = join(dir, 'shared.db');
    const script = fileURLToPath(new URL('./fixtures/add-items.ts', import.meta.url));
    const writer = (label: string) =>
      promisify(execFile)(process.execPath, ['--import', import.meta.resolve('tsx'), script, path, 'shared', label, '15'], { timeout: HANG_GUARD_MS });
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    const session = await AgentStateSession.sqlite(path, { sessionId: 'shared' });
    try {
      expectWholeBatches(texts(await session.getItems()), 45);
    } finally {
      await session.close();
    }
  });
});
