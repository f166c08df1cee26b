/**
 * The inspector end to end: a SQLite file written by the fixture, served
 * read-only by `serveUi` (as `agentstate ui` serves it), and the page driven
 * in headless Chromium. Every view is opened, searched or filtered, and
 * photographed; a screenshot must not be blank. With
 * AGENTSTATE_UI_SCREENSHOTS=<folder> the screenshots are also written there
 * (the README's are made that way into docs/images).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sync } from '@agentstate/core';
import { openSqlite, type SqliteProvider } from '@agentstate/sqlite';
import { createStaticEmbedder } from '@agentstate/embeddings';
import { serveUi, type UiHandle } from '@agentstate/ui';
import type { Browser, Dialog, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPage, pixelSpread, skipBrowser } from './browser.js';
import { openWriter, type Seeded, writeFixture } from './fixture.js';

const LONG_TURNS = 5_000;

let dir: string;
let path: string;
let seeded: Seeded;
let reader: SqliteProvider;
let ui: UiHandle;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentstate-ui-'));
  path = join(dir, 'state.db');
  seeded = await writeFixture(path, LONG_TURNS);
  reader = await openSqlite(path, { readonly: true, embedder: createStaticEmbedder() });
  ui = await serveUi(reader, { port: 0, databaseFile: path, pollMs: 200 });
  if (skipBrowser) return;
  browser = await launchChromium();
  page = await newPage(browser, { viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Screenshots the page, checks it is not blank, and keeps it when asked. */
async function photograph(name: string): Promise<void> {
  const png = await page.screenshot();
  const spread = await pixelSpread(browser, png);
  expect(spread.deviation, `${name} is not blank`).toBeGreaterThan(8);
  expect(spread.inked, `${name} has content`).toBeGreaterThan(0.02);
  const keep = process.env.AGENTSTATE_UI_SCREENSHOTS;
  if (keep) {
    mkdirSync(keep, { recursive: true });
    writeFileSync(join(keep, `ui-${name}.png`), png);
  }
}

/**
 * Clicks `button` and answers the dialog the click opens, both awaited: the next step starts only once the dialog is
 * closed (a click sent while one is still open never reaches the page), and a click that opened none is no handler
 * left behind for a later dialog.
 */
async function answered(button: Locator, answer: (dialog: Dialog) => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('dialog').then(answer), button.click()]);
}

/** Loads the page afresh on `view` (a new document, so no filter of an earlier test is left). */
async function open(view: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${ui.url}#/${view}`);
  await page.getByTestId(`view-${view}`).waitFor();
}

/** A GET with any Host and Origin, which fetch would not send as given. */
function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('the server', () => {
  it('refuses requests addressed to another host, or from another origin', async () => {
    const api = `${ui.url}api/overview`;
    expect(await rawGet(api, {})).toBe(200);
    expect(await rawGet(api, { host: 'attacker.example' })).toBe(403);
    expect(await rawGet(ui.url, { host: 'attacker.example:80' })).toBe(403);
    expect(await rawGet(api, { origin: 'http://attacker.example' })).toBe(403);
    expect(await rawGet(api, { origin: `http://localhost:${ui.port}` })).toBe(200);
  });

  it('with a token, answers any host but only calls that carry the token', async () => {
    const token = 'a-secret-of-sixteen-chars';
    const guarded = await serveUi(reader, { port: 0, token });
    try {
      const base = guarded.url.replace(/\?.*$/, '');
      expect(await rawGet(`${base}api/overview`, { host: 'tunnel.example' })).toBe(401);
      expect(await rawGet(`${base}api/overview`, { host: 'tunnel.example', authorization: `Bearer ${token}` })).toBe(200);
      expect(await rawGet(`${base}api/overview?token=${token}`, { host: 'tunnel.example' })).toBe(200);
      expect(await rawGet(`${base}api/overview`, { authorization: 'Bearer not-the-token-at-all' })).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('refuses deletes unless started with allowWrites', async () => {
    const res = await fetch(`${ui.url}api/sessions/${seeded.toolSessionId}`, { method: 'DELETE' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/read-only/);
  });

  it('refuses purges unless started with allowWrites', async () => {
    const res = await fetch(`${ui.url}api/purge/${seeded.toolSessionId}?reason=test`, { method: 'POST' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/read-only/);
  });
});

describe.skipIf(skipBrowser)('the page in Chromium', () => {
  it('lists sessions, opens a transcript and unfolds a tool call', async () => {
    await open('sessions');
    const list = page.getByTestId('session-list');
    await list.getByText('Weather in Lisbon').click();
    const transcript = page.getByTestId('transcript');
    await transcript.getByText('What is the weather in Lisbon tomorrow?').waitFor();
    await expect(transcript.getByText('tokens: 182').count()).resolves.toBe(1);
    const call = transcript.getByRole('button', { name: /tool call · get_weather/ });
    expect(await call.getAttribute('aria-expanded')).toBe('false');
    expect(await transcript.getByText('"city": "Lisbon"').count()).toBe(0);
    await call.click();
    await transcript.getByText('"city": "Lisbon"').waitFor();
    await transcript.getByRole('button', { name: /tool result · get_weather/ }).click();
    await transcript.getByText('"forecast": "sunny"').waitFor();
    await transcript.getByRole('button', { name: /reasoning/ }).click();
    await transcript.getByText('call the weather tool').waitFor();
    await photograph('sessions');
  });

  it('keeps only the visible turns of a 5,000-turn transcript in the page, and scrolls to the last', async () => {
    await open('sessions');
    await page.getByTestId('session-list').getByText('Long support chat').click();
    const transcript = page.getByTestId('transcript');
    await transcript.getByText('Message number 1 about the invoice', { exact: true }).waitFor();
    expect(await transcript.locator('.turn').count()).toBeLessThan(60);
    await transcript.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await transcript.getByText(`Message number ${LONG_TURNS} about the invoice`, { exact: true }).waitFor();
    expect(await transcript.locator('.turn').count()).toBeLessThan(60);
  });

  it('searches the turns of every session', async () => {
    await open('sessions');
    await page.getByLabel('search turns').fill('lisbon weather');
    const results = page.getByTestId('search-results');
    await results.getByText('Weather in Lisbon').first().waitFor();
    await results
      .getByText(/score \d\.\d{3}/)
      .first()
      .waitFor();
  });

  it('recalls memory in the three modes side by side, with scores and filters', async () => {
    await open('memory');
    await page.getByLabel('recall query').fill('invoice billing month');
    for (const mode of ['lexical', 'semantic', 'hybrid']) {
      await page.getByTestId(`recall-${mode}`).locator('.hit').first().waitFor();
    }
    await page.getByTestId('recall-lexical').getByText('Invoices are sent on the first day of the month').waitFor();
    await page.getByTestId('recall-hybrid').locator('.score').first().waitFor();
    await page.getByLabel('kinds').fill('policy');
    await page.getByLabel('recall query').fill('');
    const hybrid = page.getByTestId('recall-hybrid');
    await hybrid.getByText('Refunds over 100 EUR need a manager').waitFor();
    await expect.poll(() => hybrid.locator('.hit').count()).toBe(1);
    await page.getByLabel('kinds').fill('');
    await page.getByLabel('metadata filter').fill('{"topic":"ui"}');
    await expect.poll(() => hybrid.locator('.hit').count()).toBe(1);
    await hybrid.getByText('The user prefers dark mode').waitFor();
  });

  it("unfolds a memory item's history: each version, the event that wrote it and what changed", async () => {
    await open('memory');
    await page.getByLabel('recall query').fill('customer plan');
    const hit = page.getByTestId('recall-lexical').locator('.hit', { hasText: 'The customer is on the pro plan' });
    await hit.waitFor();
    expect(await hit.getByTestId('history').count()).toBe(0);
    await hit.getByRole('button', { name: 'history' }).click();
    const history = hit.getByTestId('history');
    await expect.poll(() => history.locator('.version').count()).toBe(2);
    expect(await history.locator('.version .type').allTextContents()).toEqual(['memory.written', 'memory.updated']);
    const change = history.locator('.version').nth(1).locator('.fields li', { hasText: 'content' });
    expect(await change.locator('.before').textContent()).toBe('The customer is on the free plan');
    expect(await change.locator('.after').textContent()).toBe('The customer is on the pro plan');
    await photograph('memory');
  });

  it('shows the history of a session and of a skill', async () => {
    await open('sessions');
    await page.getByTestId('session-list').getByText('Weather in Lisbon').click();
    await page.getByRole('button', { name: 'history', exact: true }).click();
    // The session's creation, then a version for each of its four turns.
    await expect.poll(() => page.getByTestId('history').locator('.version').count()).toBe(5);
    expect(await page.getByTestId('history').locator('.version .type').first().textContent()).toBe('session.created');
    await open('skills');
    await page.getByRole('button', { name: /refund/ }).click();
    const detail = page.getByTestId('skill-detail');
    await detail.getByRole('button', { name: 'history', exact: true }).click();
    // Two upserts and six outcomes.
    await expect.poll(() => detail.getByTestId('history').locator('.version').count()).toBe(8);
    expect(await detail.getByTestId('history').locator('.version .type', { hasText: 'skill.outcome_recorded' }).count()).toBe(6);
  });

  it('shows a skill with its versions, its outcome chart and its body as sanitised Markdown', async () => {
    await open('skills');
    await page.getByRole('button', { name: /refund/ }).click();
    const detail = page.getByTestId('skill-detail');
    await detail.getByTestId('outcome-chart').waitFor();
    expect(await detail.locator('svg[role=img]').getAttribute('aria-label')).toBe('uses and wins over time: 4 wins of 6 uses');
    await expect.poll(() => detail.locator('.versions button').count()).toBe(2);
    await detail.locator('.markdown table').waitFor();
    expect(await detail.locator('.markdown strong').first().textContent()).toBe('invoice');
    expect(await detail.locator('.markdown script').count()).toBe(0);
    expect(await detail.locator('.markdown img[onerror]').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: boolean }).pwned)).toBeUndefined();
    await photograph('skills');
    await detail.locator('.versions button').first().click();
    await expect.poll(() => detail.locator('.markdown table').count()).toBe(0);
    await detail.locator('.markdown').getByText('Check the invoice.', { exact: false }).waitFor();
  });

  it('moves the time slider and shows the counts as of that event (provider.at), and the diff to a second point', async () => {
    await open('timeline');
    await page.getByTestId('events').locator('.event').first().waitFor();
    const slider = page.getByLabel('time travel');
    await slider.fill(String(seeded.afterSessions));
    await expect.poll(() => page.getByTestId('slider-seq').textContent()).toBe(`#${seeded.afterSessions.toLocaleString('en')}`);
    const counts = page.getByTestId('counts');
    await expect.poll(() => counts.textContent()).toContain(`as of #${seeded.afterSessions.toLocaleString('en')}`);
    expect(await page.getByTestId('count-sessions').textContent()).toBe('3');
    expect(await page.getByTestId('count-memory').textContent()).toBe('0');
    expect(await page.getByTestId('count-skills').textContent()).toBe('0');
    expect(await page.getByTestId('count-turns').textContent()).toBe((LONG_TURNS + 4).toLocaleString('en'));
    await slider.fill('1');
    await expect.poll(() => page.getByTestId('count-sessions').textContent()).toBe('1');
    expect(await page.getByTestId('count-turns').textContent()).toBe('0');
    await slider.fill(String(seeded.head));
    await expect.poll(() => page.getByTestId('count-memory').textContent()).toBe('4');
    expect(await page.getByTestId('count-skills').textContent()).toBe('2');

    // The diff from the end of the sessions to the head: the skills and memory written since.
    await slider.fill(String(seeded.afterSessions));
    const diff = page.getByTestId('diff');
    await expect.poll(() => diff.textContent()).toContain(`from #${seeded.afterSessions.toLocaleString('en')} to #${seeded.head.toLocaleString('en')}`);
    expect(await page.getByTestId('diff-memory-created').textContent()).toBe('4');
    expect(await page.getByTestId('diff-skills-created').textContent()).toBe('2');
    expect(await page.getByTestId('diff-sessions-created').textContent()).toBe('0');
    await page.getByTestId('diff-memory').getByText('The customer is on the pro plan').waitFor();
    await photograph('timeline');
    // The second point moved back to the first: nothing changed between them.
    await page.getByLabel('compare with').fill(String(seeded.afterSessions));
    await expect
      .poll(() => diff.textContent())
      .toContain(`from #${seeded.afterSessions.toLocaleString('en')} to #${seeded.afterSessions.toLocaleString('en')}`);
    expect(await page.getByTestId('diff-memory-created').textContent()).toBe('0');

    // By instant: the last event at or before the time of event 1 is event 1.
    const [first] = await reader.log.read({ stream: 'state', afterSeq: 0, limit: 1 });
    await page.getByLabel('instant to go to').fill(first!.time);
    await page.getByRole('button', { name: 'go' }).click();
    await expect.poll(() => page.getByTestId('slider-seq').textContent()).toBe('#1');
    await expect.poll(() => page.getByTestId('count-sessions').textContent()).toBe('1');
  });

  it('filters the timeline by type and namespace', async () => {
    await open('timeline');
    await page.getByLabel('event type').selectOption('memory.written');
    const events = page.getByTestId('events').locator('.event');
    await expect.poll(() => events.count()).toBe(4);
    await page.getByLabel('namespace filter').fill('team');
    await expect.poll(() => events.count()).toBe(2);
  });

  it('shows a live write without reloading', async () => {
    await open('timeline');
    const events = page.getByTestId('events');
    await events.locator('.event').first().waitFor();
    await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 1;
    });
    const writer = await openWriter(path);
    try {
      await writer.memory.write({ content: 'Written while the page was open', kind: 'fact' });
    } finally {
      await writer.close();
    }
    await events.getByText('Written while the page was open').waitFor();
    await expect.poll(() => page.getByTestId('head').textContent()).toContain(`${(seeded.head + 1).toLocaleString('en')} events`);
    // The same document: nothing reloaded it.
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(1);
  });

  it('never names a head in the comparison other than the one the header shows, while new events arrive', async () => {
    await open('timeline');
    const headText = page.getByTestId('head');
    const before = await reader.log.head('state');
    await expect.poll(() => page.getByTestId('counts').locator('thead').textContent()).toContain(`#${before.toLocaleString('en')} (the head)`);
    // Every state the page shows between here and the end: the header's head beside the one the table calls the head.
    // Run in the page, as text: the tests compile without the DOM's types.
    await page.evaluate(`(() => {
      const seen = [];
      const check = () => {
        const header = /([\\d,]+) events/.exec(document.querySelector('[data-testid="head"]')?.textContent ?? '')?.[1];
        const claimed = /#([\\d,]+) \\(the head\\)/.exec(document.querySelector('[data-testid="counts"] thead')?.textContent ?? '')?.[1];
        if (claimed !== undefined && claimed !== header) seen.push('header ' + header + ', comparison ' + claimed);
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
      globalThis.mismatches = seen;
    })()`);
    const writer = await openWriter(path);
    try {
      for (let i = 0; i < 3; i += 1) {
        await writer.memory.write({ content: `Arrived while comparing ${i}`, kind: 'fact' });
        const head = (before + i + 1).toLocaleString('en');
        await expect.poll(() => headText.textContent()).toContain(`${head} events`);
        await expect.poll(() => page.getByTestId('counts').locator('thead').textContent()).toContain(`#${head} (the head)`);
      }
    } finally {
      await writer.close();
    }
    expect(await page.evaluate(() => (globalThis as unknown as { mismatches: string[] }).mismatches)).toEqual([]);
  });

  it('summarises a turn of tool parts alone by its tool, not as a bare role', async () => {
    const writer = await openWriter(path);
    try {
      const chat = await writer.sessions.create({ title: 'Tools only' });
      await writer.sessions.appendTurn({
        sessionId: chat.id,
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Look the order up first.' },
          { type: 'tool-call', callId: 'call-9', toolName: 'lookup_order', input: { order: 7 } },
        ],
      });
      await writer.sessions.appendTurn({
        sessionId: chat.id,
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'call-9', toolName: 'lookup_order', output: 'not found', isError: true }],
      });
    } finally {
      await writer.close();
    }
    await open('timeline');
    await page.getByLabel('event type').selectOption('session.turn_appended');
    const summaries = page.getByTestId('events').locator('.event .summary');
    await expect
      .poll(async () => (await summaries.allTextContents()).slice(0, 2))
      .toEqual(['tool: tool error · lookup_order', 'assistant: tool call · lookup_order']);
  });

  it("shows where a received event comes from, this store's replica id, and how far each origin is received", async () => {
    const writer = await openWriter(path);
    const laptop = await openWriter(join(dir, 'laptop.db'));
    try {
      await laptop.memory.write({ content: 'Written on the laptop', kind: 'fact' });
      await sync(writer, laptop);
      const [origin, replica, head] = [await laptop.replicaId(), await writer.replicaId(), await writer.log.head('state')];
      await open('timeline');
      const row = page.getByTestId('events').locator('.event').first();
      await row.getByText('Written on the laptop').waitFor();
      expect(await row.getByTestId('origin').textContent()).toBe(`from ${origin.slice(0, 8)} #1`);
      expect(await page.getByTestId('events').getByTestId('origin').count()).toBe(1);
      await open('health');
      expect(await page.getByTestId('health-replica').textContent()).toBe(replica.slice(0, 8));
      await expect
        .poll(async () => (await page.getByTestId('origins').locator('li').allTextContents()).sort())
        .toEqual([`${origin.slice(0, 8)} up to #1`, `${replica.slice(0, 8)} up to #${head.toLocaleString('en')} (this store)`].sort());
    } finally {
      await Promise.all([writer.close(), laptop.close()]);
    }
  });

  it("marks the version that lost a merge in a record's history as a conflict", async () => {
    const writer = await openWriter(path);
    const edge = await openWriter(join(dir, 'edge.db'));
    try {
      const item = await writer.memory.write({ content: 'The office opens at eight', kind: 'fact' });
      await sync(writer, edge);
      // Updated on both stores apart: the later by (HLC, writer) wins, and the other stays in history as a conflict.
      await writer.memory.update(item.id, { content: 'The office opens at nine' });
      await edge.memory.update(item.id, { content: 'The office opens at ten' });
      await sync(writer, edge);
      const versions = await writer.history(item.id);
      const losers = versions.filter((v) => v.conflict).map((v) => v.record);
      expect(losers).toHaveLength(1);
      await open('memory');
      await page.getByLabel('recall query').fill('office opens');
      const hit = page.getByTestId('recall-lexical').locator('.hit', { hasText: 'The office opens at' });
      await hit.waitFor();
      await hit.getByRole('button', { name: 'history' }).click();
      const history = hit.getByTestId('history');
      await expect.poll(() => history.locator('.version').count()).toBe(versions.length);
      const marked = history.locator('.version', { has: page.locator('.chip.conflict') });
      expect(await marked.count()).toBe(1);
      expect(await marked.locator('.fields .after').allTextContents()).toContain((losers[0] as { content: string }).content);
    } finally {
      await Promise.all([writer.close(), edge.close()]);
    }
  });

  it('shows health: counts by type, the stored snapshot, and verify on demand', async () => {
    await open('health');
    await page.getByTestId('counts-by-type').getByText('session.turn_appended').waitFor();
    await page
      .getByTestId('snapshots')
      .getByText(`seq ${seeded.head.toLocaleString('en')}`)
      .waitFor();
    await page.getByRole('button', { name: 'run verify' }).click();
    await expect.poll(() => page.getByTestId('verify-result').textContent()).toMatch(/^ok: the tables equal a replay of all/);
    await photograph('health');
  });

  // Last: it changes the file the other tests read.
  it('with allowWrites, deletes a memory item only once the dialog is accepted', async () => {
    const writable = await openWriter(path);
    const server = await serveUi(writable, { port: 0, allowWrites: true, pollMs: 200 });
    try {
      await page.goto('about:blank');
      await page.goto(`${server.url}#/memory`);
      await page.getByLabel('recall query').fill('manager');
      const lexical = page.getByTestId('recall-lexical');
      const hit = lexical.locator('.hit', { hasText: 'Refunds over 100 EUR need a manager' });
      await hit.waitFor();
      await answered(hit.getByRole('button', { name: 'delete' }), (dialog) => dialog.dismiss());
      const recall = async () => (await writable.memory.recall({ query: 'manager', mode: 'lexical' })).length;
      expect(await recall()).toBe(1);
      await answered(hit.getByRole('button', { name: 'delete' }), (dialog) => dialog.accept());
      await expect.poll(recall).toBe(0);
      await expect.poll(() => hit.count()).toBe(0);
    } finally {
      await server.close();
      await writable.close();
    }
  });

  it('with allowWrites, purges a memory item only once a reason is given, and logs the purge with that reason', async () => {
    const writable = await openWriter(path);
    const server = await serveUi(writable, { port: 0, allowWrites: true, pollMs: 200 });
    try {
      await page.goto('about:blank');
      await page.goto(`${server.url}#/memory`);
      await page.getByLabel('recall query').fill('dark mode');
      const hit = page.getByTestId('recall-lexical').locator('.hit', { hasText: 'The user prefers dark mode' });
      await hit.waitFor();
      const recall = async () => (await writable.memory.recall({ query: 'dark mode', mode: 'lexical' })).length;
      const head = await writable.log.head('state');
      await answered(hit.getByRole('button', { name: 'purge' }), (dialog) => dialog.dismiss());
      expect(await recall()).toBe(1);
      expect(await writable.log.head('state')).toBe(head);
      await answered(hit.getByRole('button', { name: 'purge' }), (dialog) => dialog.accept('the user asked to be forgotten'));
      await expect.poll(recall).toBe(0);
      await expect.poll(() => hit.count()).toBe(0);
      const [event] = await writable.log.read({ stream: 'state', afterSeq: head });
      expect(event).toMatchObject({ type: 'records.purged', payload: { reason: 'the user asked to be forgotten' } });
      expect(JSON.stringify(await writable.log.read({ stream: 'state' }))).not.toContain('prefers dark mode');
    } finally {
      await server.close();
      await writable.close();
    }
  });
  it('shows the newest summary over exactly the turns it covers, its earlier ones in history, and marks it stale once a covered turn is purged', async () => {
    const writable = await openWriter(path);
    const server = await serveUi(writable, { port: 0, pollMs: 200 });
    try {
      const session = await writable.sessions.create({ title: 'Trip to Porto', scope: ['team', 'web'] });
      const said = ['Plan a trip to Porto', 'Book the tangerine hotel', 'Which train goes there?', 'The nine o clock one', 'Thanks'];
      const turns = [];
      for (const content of said) turns.push(await writable.sessions.appendTurn({ sessionId: session.id, role: 'user', content }));
      await writable.sessions.compact(session.id, { through: 1, summary: 'The user plans a trip.', model: 'sum-1' });
      await writable.sessions.compact(session.id, { through: turns[2]!.id, summary: 'Porto trip: hotel booked.', model: 'sum-2', tokens: 12 });
      await page.goto('about:blank');
      await page.goto(`${server.url}#/sessions`);
      await page.getByTestId('session-list').getByText('Trip to Porto').click();
      const summary = page.getByTestId('summary');
      const transcript = page.getByTestId('transcript');
      await summary.getByText('Porto trip: hotel booked.').waitFor();
      expect(await summary.locator('.turn-head').textContent()).toMatch(/^summarythrough turn #3sum-212 tokens.*\d$/);
      // The covered turns are folded under the summary: only the two after it are in the transcript, until opened.
      await expect.poll(() => transcript.locator('.turn').count()).toBe(2);
      expect(await transcript.getByText(said[0]!).count()).toBe(0);
      await summary.getByRole('button', { name: 'show the 3 covered turns' }).click();
      await expect.poll(() => transcript.locator('.turn.covered').count()).toBe(3);
      const seqs = (rows: string) => transcript.locator(rows).locator('.turn-head .muted').filter({ hasText: /^#/ }).allTextContents();
      expect(await seqs('.turn.covered')).toEqual(['#1', '#2', '#3']);
      expect(await seqs('.turn:not(.covered)')).toEqual(['#4', '#5']);
      // The earlier summary: in the session's history, each compaction a version with the summary it wrote.
      await page.getByRole('button', { name: 'history', exact: true }).click();
      const compactions = page.getByTestId('history').locator('.version', { hasText: 'session.compacted' });
      await expect.poll(() => compactions.count()).toBe(2);
      const change = compactions.nth(1).locator('.fields li', { hasText: 'summary' });
      expect(await change.locator('.before').textContent()).toBe('The user plans a trip. (through turn #1, sum-1)');
      expect(await change.locator('.after').textContent()).toBe('Porto trip: hotel booked. (through turn #3, sum-2, 12 tokens)');

      await writable.purge({ id: turns[1]!.id, reason: 'the user asked' });
      await summary.getByText('stale: a turn it covers was purged').waitFor();
      await expect.poll(() => compactions.count()).toBe(3);
      expect(await compactions.nth(2).locator('.fields li', { hasText: 'summary' }).locator('.after').textContent()).toBe(
        'Porto trip: hotel booked. (through turn #3, sum-2, 12 tokens, stale)',
      );
      await expect.poll(() => seqs('.turn.covered')).toEqual(['#1', '#3']);
      expect(await page.content()).not.toContain('tangerine');

      // The scope's working memory, asked for by its kind, is named as such rather than by its reserved key.
      await writable.workingMemory.replace({ text: 'Porto: hotel booked, train at nine', scope: ['team', 'web'] });
      await page.goto(`${server.url}#/memory`);
      await page.getByLabel('kinds').fill('working-memory');
      const pinned = page.getByTestId('recall-lexical').locator('.hit', { hasText: 'Porto: hotel booked, train at nine' });
      await pinned.locator('.chip', { hasText: 'working memory' }).waitFor();
      expect(await pinned.textContent()).not.toContain('key working-memory');
      // The timeline says what each compaction wrote.
      await page.goto(`${server.url}#/timeline`);
      const events = page.getByTestId('events');
      await events.getByText('Trip to Porto: summary "Porto trip: hotel booked."').waitFor();
      await events.getByText('Trip to Porto: summary marked stale').waitFor();
      await page.goto(`${server.url}#/sessions`);
      await page.getByTestId('session-list').getByText('Trip to Porto').click();
      await summary.waitFor();

      // A purge by a text the summary holds takes the session: nothing of it stays on the page.
      await writable.purge({ matching: 'Porto trip', reason: 'the user asked' });
      await page.getByText(/session not found/).waitFor();
      expect(await page.content()).not.toMatch(/Porto trip|plans a trip/);
    } finally {
      await server.close();
      await writable.close();
    }
  });
});
