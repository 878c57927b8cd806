import { AppConfig } from '@app/config';
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether an address or name this process is bound to, or a Host header names, is the loopback interface. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower-cased; undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = header.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (v6) return v6[1];
  const named = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value);
  return named ? named[1] : undefined;
}

/**
 * DNS rebinding protection: a page on another site can make a browser send requests to this process under
 * the attacker's host name. Bound to a loopback address, the endpoint accepts only loopback host names (and
 * ALLOWED_HOSTS); bound elsewhere, it accepts ALLOWED_HOSTS when set (plus loopback names), else any name.
 */
export function hostAllowed(header: string | undefined, config: Pick<AppConfig, 'host' | 'allowedHosts'>): boolean {
  const name = hostName(header);
  if (!name) return false;
  if (isLoopback(name) || config.allowedHosts.includes(name)) return true;
  return !isLoopback(config.host) && config.allowedHosts.length === 0;
}

/**
 * A browser names the page that made a request in Origin. Requests without one (programs, not pages) pass;
 * a page may call the endpoint only from the registry's own origin or one listed in CORS_ORIGINS.
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined, config: Pick<AppConfig, 'corsOrigins'>): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (config.corsOrigins.some((o) => o.replace(/\/+$/, '').toLowerCase() === url.origin.toLowerCase())) return true;
  return hostHeader !== undefined && url.host.toLowerCase() === hostHeader.trim().toLowerCase();
}
