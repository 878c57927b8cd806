import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The console's Content-Security-Policy: everything from this origin only, no inline script or style, no
 * framing, no <base>, forms posting only here. Images may be data: URIs (tool results), nothing else foreign.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Where `npm run build` puts the console: dist/console at the root of the package (source or built code alike). */
export function consoleDir(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return join(from, 'console');
    dir = up;
  }
  return join(dir, 'dist', 'console');
}

/** Asset names carry a content hash (index-B2baPODn.js): a changed file is a new URL, so a year is safe. */
const HASHED = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/**
 * Serves the console at `/` (index.html, revalidated on every load) and `/assets/*` (hashed names, cached for a
 * year, immutable), same origin as the API. Nothing else is touched: every other path goes on to the API's own
 * routes. Without a build (an API built with `nest build` alone), `/` says how to build it.
 */
export function mountConsole(app: NestExpressApplication, dir = consoleDir()): void {
  let index: Buffer | undefined;
  const readIndex = (): Buffer | undefined => {
    if (index) return index;
    const file = join(dir, 'index.html');
    if (existsSync(file)) index = readFileSync(file);
    return index;
  };

  app.use('/assets', (_req: Request, res: Response, next: NextFunction) => {
    res.set(SECURITY_HEADERS);
    next();
  });
  app.useStaticAssets(join(dir, 'assets'), {
    prefix: '/assets/',
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    fallthrough: true,
    etag: true,
    setHeaders: (res, path) => {
      res.setHeader('cache-control', HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || (req.path !== '/' && req.path !== '/index.html')) return next();
    res.set(SECURITY_HEADERS);
    res.set('cache-control', 'no-cache');
    const body = readIndex();
    if (!body) {
      res.status(503).type('text/plain; charset=utf-8').send('The console is not built. Run `npm run build` (or `npm run build:console`).\nThe API is at /api/v1 and its documentation at /docs.\n');
      return;
    }
    res.status(200).type('text/html; charset=utf-8').send(body);
  });
}
