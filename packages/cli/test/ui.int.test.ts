/**
 * `agentstate ui` as a user runs it: it prints the page's address, serves
 * the page and its API over the database read-only (a delete is refused),
 * stops on SIGTERM with exit 0, and a missing database exits 1 before
 * anything listens.
 */
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { start, tempDir } from './helpers.js';
import { fails, ok } from './in-process.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

/** The first line the server prints, parsed. */
async function firstJsonLine(stream: NodeJS.ReadableStream): Promise<{ url: string; allowWrites: boolean }> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    const end = text.indexOf('\n}');
    if (end !== -1) return JSON.parse(text.slice(0, end + 2)) as { url: string; allowWrites: boolean };
  }
  throw new TypeError(`the server printed no address: ${text}`);
}

describe('agentstate ui', () => {
  it('serves the page and a read-only API until SIGTERM', async () => {
    const db = tmp.path('state.db');
    ok(['demo', '--db', db]);
    const child = start(['ui', '--db', db, '--port', '0', '--json']);
    try {
      const { url, allowWrites } = await firstJsonLine(child.stdout);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(allowWrites).toBe(false);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root"></div>');
      const overview = (await (await fetch(`${url}api/overview`)).json()) as { backend: string; head: number };
      expect(overview.backend).toBe('sqlite');
      expect(overview.head).toBeGreaterThan(0);
      const sessions = (await (await fetch(`${url}api/sessions`)).json()) as { items: Array<{ id: string }> };
      const refused = await fetch(`${url}api/sessions/${sessions.items[0]!.id}`, { method: 'DELETE' });
      expect(refused.status).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('refuses a missing database before listening', () => {
    const out = fails(1, ['ui', '--db', tmp.path('missing.db'), '--port', '0']);
    expect(out).toMatch(/no agentstate database at/);
  });
});
