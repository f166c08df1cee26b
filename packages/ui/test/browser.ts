/**
 * Debian's Chromium, headless, driven by playwright-core: no browser is
 * downloaded. Without it the browser tests skip on a developer's machine
 * (`apt-get install -y chromium` installs it) and fail under CI, whose
 * script installs it.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** True when the browser tests must skip: no Chromium, and not under CI. */
export const skipBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';

/** Starts headless Chromium with the flags that keep it off the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/** A new page whose waits, clicks and navigations have no deadline of their own: a busy machine may take long, and the test's timeout catches a hang. */
export async function newPage(browser: Browser, options?: BrowserContextOptions): Promise<Page> {
  const page = await browser.newPage(options);
  page.setDefaultTimeout(0);
  return page;
}

/**
 * Opens a Chromium page before the tests of the suite this is called in,
 * and closes the browser after them; the returned function gives the page.
 */
export function chromiumPage(): () => Page {
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await newPage(browser);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (page === undefined) throw new Error('the page is opened before the tests of its suite');
    return page;
  };
}

/** A page served by another local program, as a dev server would serve it. */
export interface ForeignPage {
  /** Its address, `http://localhost:<port>/`: another origin than any server under test. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `html` at `/` from a second loopback HTTP server on a port of its own. */
export async function serveForeignPage(html: string): Promise<ForeignPage> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Opens `foreign` in `page` and submits its first form, which posts to
 * another server and so leaves the page; resolves once that server answered.
 */
export async function submitForeignForm(page: Page, foreign: ForeignPage, target: RegExp): Promise<void> {
  await page.goto(foreign.url);
  await Promise.all([page.waitForURL(target), page.evaluate('document.forms[0].submit()')]);
}

/** How varied a PNG's pixels are: the standard deviation of their luminance (0 for a blank image) and the share of pixels unlike the most common colour. */
export async function pixelSpread(browser: Browser, png: Buffer): Promise<{ deviation: number; inked: number }> {
  const page = await newPage(browser);
  try {
    // Page code as text: the tests compile without the DOM's types.
    const dataUrl = JSON.stringify(`data:image/png;base64,${png.toString('base64')}`);
    return (await page.evaluate(`(async (dataUrl) => {
      const image = new Image();
      image.src = dataUrl;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, image.width, image.height);
      const pixels = data.length / 4;
      const colours = new Map();
      let sum = 0;
      let squares = 0;
      for (let i = 0; i < data.length; i += 4) {
        const y = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
        sum += y;
        squares += y * y;
        const colour = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        colours.set(colour, (colours.get(colour) ?? 0) + 1);
      }
      const mean = sum / pixels;
      const common = Math.max(...colours.values());
      return { deviation: Math.sqrt(squares / pixels - mean * mean), inked: 1 - common / pixels };
    })(${dataUrl})`)) as { deviation: number; inked: number };
  } finally {
    await page.close();
  }
}
