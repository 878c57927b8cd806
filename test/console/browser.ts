import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when it is missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = (): boolean => existsSync(CHROMIUM);

const ROOT = join(__dirname, '..', '..');
export const CONSOLE_INDEX = join(ROOT, 'dist', 'console', 'index.html');

/** The console as `npm run build` leaves it; built here when a test run finds no build (after `nest build` alone). */
export function ensureConsoleBuilt(): void {
  if (existsSync(CONSOLE_INDEX) && existsSync(join(ROOT, 'apps', 'console', 'src', 'generated', 'openapi.json'))) return;
  execFileSync(process.execPath, [join(ROOT, 'apps', 'console', 'build.mjs')], { stdio: 'inherit' });
}

/**
 * One headless Chromium for a whole test file, on a fresh profile, with nothing reaching past loopback: no
 * background networking, no component updates, no QUIC. Each page is its own tab, with its own sessionStorage
 * (the console keeps the key there), so two pages are two independent sign-ins.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'mcpr-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the console in a new tab and signs in with `key` through the form. */
export async function signIn(context: BrowserContext, baseUrl: string, key: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(baseUrl + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
  return page;
}
