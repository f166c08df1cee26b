/**
 * Another local program's page cannot change anything through the
 * inspector: a page served from a second loopback server (another port, as
 * a dev server would be) posts purges to an inspector started with
 * `allowWrites`, by a `no-cors` fetch and by a form, in Chromium, and the
 * records stay; the inspector's own page still purges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteProvider } from '@agentstate/sqlite';
import { serveUi, type UiHandle } from '@agentstate/ui';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPage, type ForeignPage, serveForeignPage, skipBrowser, submitForeignForm } from './browser.js';
import { openWriter } from './fixture.js';

let dir: string;
let db: SqliteProvider;
let ui: UiHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentstate-ui-origin-'));
  db = await openWriter(join(dir, 'state.db'));
  ui = await serveUi(db, { port: 0, allowWrites: true, pollMs: 200 });
});

afterAll(async () => {
  await ui?.close();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The purge address of a record, as the inspector's page would post it. */
const purgeUrl = (id: string): string => `${ui.url}api/purge/${id}?reason=${encodeURIComponent('a page asked')}`;

/** Whether the memory item `id` is still there with its content. */
const kept = (item: { id: string; content: string }): Promise<boolean> =>
  db.memory.get(item.id).then(
    (found) => found.content === item.content,
    () => false,
  );

describe.skipIf(skipBrowser)('a page of another local program, in Chromium', () => {
  const page = chromiumPage();
  let foreign: ForeignPage | undefined;
  afterAll(async () => {
    await foreign?.close();
  });

  it('cannot purge by a no-cors fetch, nor by a form post', async () => {
    const byFetch = await db.memory.write({ content: 'Kept from a no-cors fetch' });
    const byForm = await db.memory.write({ content: 'Kept from a form post' });
    foreign = await serveForeignPage(`<!doctype html><form method="post" action="${purgeUrl(byForm.id)}"></form>`);

    await page().goto(foreign.url);
    const sent = await page().evaluate(`fetch(${JSON.stringify(purgeUrl(byFetch.id))}, { method: 'POST', mode: 'no-cors' }).then((r) => r.type)`);
    expect(sent).toBe('opaque');
    await submitForeignForm(page(), foreign, /\/api\/purge\//);

    expect(await kept(byFetch)).toBe(true);
    expect(await kept(byForm)).toBe(true);
    expect(await page().textContent('body')).toMatch(/forbidden: changes come from the inspector's own page/);
  });

  it("leaves the inspector's own page able to purge", async () => {
    const item = await db.memory.write({ content: 'Purged by the inspector itself' });
    await page().goto(ui.url);
    const status = await page().evaluate(`fetch(${JSON.stringify(purgeUrl(item.id))}, { method: 'POST' }).then((r) => r.status)`);
    expect(status).toBe(200);
    expect(await kept(item)).toBe(false);
  });
});
