/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { freePort } from '../fixtures/net';
import { startTestApp, TestApp } from '../support/app';
import { CHROMIUM, ensureConsoleBuilt, hasChromium, launchBrowser } from './browser';

/** A folder: screenshots of each screen are written there (CONSOLE_SCREENSHOTS=docs/console). */
export const SHOTS = process.env.CONSOLE_SCREENSHOTS;

/** What a hostile server puts in every string it controls: markup that would run script if it were parsed. */
export const XSS_IMG = '<img src=x onerror="window.__pwned=(window.__pwned||0)+1">';
export const XSS_URL = 'javascript:window.__pwned=(window.__pwned||0)+1';

/** `describe` where Chromium is installed; elsewhere a skipped suite whose name says why. */
export function describeBrowser(name: string, body: () => void): void {
  if (hasChromium()) describe(name, body);
  else describe.skip(`${name}: skipped, no Chromium at ${CHROMIUM} (install it: apt-get install chromium; .ci/run does)`, body);
}

export interface ConsoleHarness {
  t: TestApp;
  context: BrowserContext;
  /** The app's PUBLIC_URL (its port is known before it starts). */
  publicUrl: string;
  /** Messages of every browser dialog any page opened (the console opens none). */
  dialogs: string[];
  close(): Promise<void>;
}

/**
 * The real application (real PostgreSQL, Redis, worker) on a known port, with the console built, and one headless
 * Chromium for the file. Any dialog a page opens is recorded and dismissed: the console asks nothing through the
 * browser's dialogs, and a hostile string that ran script would most likely open one.
 */
export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleHarness> {
  ensureConsoleBuilt();
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const [t, browser] = await Promise.all([
    startTestApp({ env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', ...env } }),
    launchBrowser(),
  ]);
  const dialogs: string[] = [];
  browser.context.on('page', (p) => p.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); }));
  return {
    t,
    context: browser.context,
    publicUrl,
    dialogs,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** What a page read: a response's request method and its body. */
export interface ReadBody {
  method: string;
  body: string;
}

/**
 * Records the body of every response `page` receives, so that a test can prove a secret never came back. A body is
 * read after its response event: `read()` waits for every body still being read, so none is missed.
 */
export function recordBodies(page: Page): { read(): Promise<ReadBody[]> } {
  const reads: Promise<ReadBody | undefined>[] = [];
  page.on('response', (r) => {
    reads.push(r.text().then((body) => ({ method: r.request().method(), body }), () => undefined));
  });
  return {
    async read() {
      return (await Promise.all(reads)).filter((b): b is ReadBody => b !== undefined);
    },
  };
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

/** Waits for a locator's text to match (Playwright's own waiting, without its test runner's expect). */
export async function expectText(locator: Locator, want: RegExp | string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let last = '';
  for (;;) {
    last = (await locator.first().textContent({ timeout }).catch(() => '')) ?? '';
    if (typeof want === 'string' ? last.includes(want) : want.test(last)) return;
    if (Date.now() > deadline) throw new Error(`expected text ${String(want)}, last saw: ${JSON.stringify(last.slice(0, 400))}`);
    await locator.page().waitForTimeout(100);
  }
}

/**
 * What would show that a hostile string was parsed: the script's window flag, images, inline scripts, event
 * handler attributes, and links that leave the console (the console links only its own fragments).
 */
export async function expectInert(page: Page, dialogs: string[], allowedLinks: (href: string) => boolean = () => false): Promise<void> {
  const report = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: number }).__pwned,
    images: [...document.querySelectorAll('img')].map((i) => i.getAttribute('src')),
    scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
    links: [...document.querySelectorAll('a')].map((a) => a.getAttribute('href') ?? ''),
  }));
  expect(report.pwned).toBeUndefined();
  expect(report.images).toEqual([]);
  expect(report.scripts).toBe(0);
  expect(report.handlers).toBe(0);
  expect(report.links.filter((h) => !h.startsWith('#') && !allowedLinks(h))).toEqual([]);
  expect(dialogs).toEqual([]);
}

/** Nothing on the page is wider than a phone's screen. */
export async function expectFitsPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
}
