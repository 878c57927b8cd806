/**
 * The body of a delivery, in the Standard Webhooks shape `{type, timestamp, data}`. `data` is the event as stored,
 * made fit to send: every string one line at most MAX_STRING characters (a status reason may hold what a server
 * sent), lists at most MAX_LIST items, nesting at most MAX_DEPTH, the whole at most MAX_PAYLOAD_BYTES (else only
 * the server's identity, with `truncated: true`).
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
const MAX_STRING = 1000;
const MAX_LIST = 100;
const MAX_DEPTH = 4;
const MAX_KEYS = 50;

// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const CONTROL = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function boundedText(text: string): string {
  const s = text.replace(CONTROL, ' ');
  return s.length > MAX_STRING ? s.slice(0, MAX_STRING) + '…' : s;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return boundedText(value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.slice(0, MAX_LIST).map((v) => clean(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, MAX_KEYS)) out[boundedText(k).slice(0, 100)] = clean(v, depth + 1);
    return out;
  }
  return null;
}

export interface WebhookEvent {
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

/** The exact bytes sent (and signed) for an event: the same on every attempt. */
export function webhookPayload(event: WebhookEvent): string {
  const data = clean(event.data, 0) as Record<string, unknown>;
  const body = JSON.stringify({ type: event.type, timestamp: event.at.toISOString(), data });
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body;
  const identity = { serverId: data.serverId ?? null, tenantId: data.tenantId ?? null, name: data.name ?? null, status: data.status ?? null, truncated: true };
  return JSON.stringify({ type: event.type, timestamp: event.at.toISOString(), data: identity });
}
