/** Items read back deep-equal from a SQLite file too, after it is closed and reopened. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentStateSession } from '@agentstate/openai-agents';
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { anyItem } from './arbitraries.js';
import { expectSame } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'agentstate-openai-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('items in a SQLite file', () => {
  it('read back deep-equal after reopening, for arbitrary items of every type', async () => {
    const path = join(dir, 'items.db');
    const written: { sessionId: string; items: unknown[] }[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(anyItem, { minLength: 1, maxLength: 5 }), async (items) => {
        const session = await AgentStateSession.sqlite(path);
        try {
          await session.addItems(items);
          written.push({ sessionId: await session.getSessionId(), items: structuredClone(items) });
        } finally {
          await session.close();
        }
      }),
      { numRuns: 100 },
    );
    for (const { sessionId, items } of written) {
      const session = await AgentStateSession.sqlite(path, { sessionId });
      try {
        expectSame(await session.getItems(), items);
      } finally {
        await session.close();
      }
    }
  });
});
