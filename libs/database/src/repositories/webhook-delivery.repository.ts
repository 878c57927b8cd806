import { Inject, Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor, isUuid, Page, PageRequest } from '../page';
import { Sql } from '../sql';
import { SQL } from '../tokens';
import type { ServerEventType } from './server-events';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One try of a delivery. */
export interface WebhookAttemptRecord {
  attempt: number;
  at: Date;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDeliveryRecord {
  id: string;
  webhookId: string;
  /** The event's identity: the `webhook-id` header of every attempt. */
  eventId: string;
  type: ServerEventType;
  serverId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  attemptLog: WebhookAttemptRecord[];
}

/** What a worker needs to make one attempt: the event, where to send it, and the webhook's sealed secret. */
export interface ClaimedDelivery {
  id: string;
  /** Attempts made before this one (an attempt a stopped worker left unfinished is counted and recorded). */
  attemptsBefore: number;
  webhookId: string;
  url: string;
  secretCipher: string;
  eventId: string;
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

export type ClaimResult =
  | { status: 'claimed'; delivery: ClaimedDelivery }
  /** Another worker is sending it until `until`. */
  | { status: 'busy'; until: Date }
  /** Nothing to do: delivered, failed, cancelled, gone, or not due yet. */
  | { status: 'none' }
  /** The webhook is disabled: the delivery was cancelled. */
  | { status: 'cancelled' }
  /** The attempt a stopped worker left unfinished was the last one: the delivery failed. */
  | { status: 'failed' };

/** How one attempt went, and what the caller decided follows it. */
export interface AttemptOutcome {
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** When the next attempt is due; null: none (delivered, or this was the last). */
  nextAttemptAt: Date | null;
  /** A webhook is disabled after this many failed attempts in a row spanning at least `disableAfterSeconds`. */
  disableAfterFailures: number;
  disableAfterSeconds: number;
}

/** A due attempt for the queue. */
export interface DueDelivery {
  deliveryId: string;
  attempt: number;
  at: Date | null;
}

const LIST = 'webhook-deliveries';
const INTERRUPTED = 'interrupted: the worker sending it stopped before the receiver answered';

/**
 * The deliveries webhooks are owed: made from the outbox of server events, claimed one attempt at a time under a
 * lease (a worker that dies mid-attempt lets it run out, and the next claim takes over and records it), each
 * attempt recorded with its status code or error. The rows are the truth; the queue only says when to look.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /**
   * Takes up to `limit` events from the outbox and makes a delivery for each enabled webhook that wants it (its
   * event types, its owner's servers or all for the administrator's, its server filter, made before the event), in
   * one statement: concurrent dispatchers take different events. Returns the new deliveries in event order.
   */
  async dispatch(limit: number): Promise<{ taken: number; deliveries: string[] }> {
    const rows = await this.sql.query<{ id: string | null; taken: number }>(
      `WITH taken AS (
         DELETE FROM server_event_outbox
          WHERE event_id IN (SELECT event_id FROM server_event_outbox ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING event_id),
       made AS (
         INSERT INTO webhook_deliveries (id, webhook_id, event_id)
         SELECT gen_random_uuid(), w.id, e.id
           FROM taken t
           JOIN server_events e ON e.id = t.event_id
           JOIN webhooks w ON w.enabled AND e.type = ANY(w.events)
                AND (w.tenant_id IS NULL OR w.tenant_id = e.tenant_id)
                AND (cardinality(w.server_ids) = 0 OR e.server_id = ANY(w.server_ids))
                AND w.created_at <= e.at
          ORDER BY e.id
         ON CONFLICT (webhook_id, event_id) DO NOTHING
         RETURNING id, event_id)
       SELECT m.id, (SELECT count(*)::int FROM taken) AS taken FROM (SELECT 1) one LEFT JOIN made m ON true ORDER BY m.event_id`,
      [limit],
      'webhooks.dispatch',
    );
    return { taken: rows[0]?.taken ?? 0, deliveries: rows.filter((r) => r.id !== null).map((r) => r.id!) };
  }

  /**
   * Takes a delivery for one attempt, for `leaseMs`. A lease that ran out means the worker holding it stopped
   * mid-attempt: that attempt is recorded as interrupted and counted, and this claim goes on with the next one
   * (or fails the delivery when it was the last of `maxAttempts`).
   */
  async claim(id: string, leaseMs: number, maxAttempts: number): Promise<ClaimResult> {
    if (!isUuid(id)) return { status: 'none' };
    return this.sql.transaction(async (q) => {
      const [row] = await q<Omit<ClaimedDelivery, 'id' | 'attemptsBefore'> & { attempts: number; leaseUntil: Date | null; expired: boolean; due: boolean; enabled: boolean }>(
        `SELECT d.attempts, d.lease_until AS "leaseUntil", d.lease_until < now() AS expired,
                COALESCE(d.next_attempt_at <= now() + interval '2 seconds', true) AS due,
                w.enabled, w.id AS "webhookId", w.url, w.secret_cipher AS "secretCipher",
                e.event_id AS "eventId", e.type, e.at, e.data
           FROM webhook_deliveries d
           JOIN webhooks w ON w.id = d.webhook_id
           JOIN server_events e ON e.id = d.event_id
          WHERE d.id = $1::uuid AND d.status = 'pending'
          FOR UPDATE OF d`,
        [id],
      );
      if (!row) return { status: 'none' };
      if (row.leaseUntil && !row.expired) return { status: 'busy', until: row.leaseUntil };
      if (!row.enabled) {
        await q(`UPDATE webhook_deliveries SET status = 'cancelled', lease_until = NULL, next_attempt_at = NULL, last_error = $2 WHERE id = $1::uuid`, [
          id,
          'cancelled: the webhook is disabled',
        ]);
        return { status: 'cancelled' };
      }
      let attempts = row.attempts;
      if (row.leaseUntil) {
        attempts += 1;
        await q(`INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, error) VALUES ($1::uuid, $2, $3, $4) ON CONFLICT DO NOTHING`, [id, attempts, row.leaseUntil, INTERRUPTED]);
        if (attempts >= maxAttempts) {
          await q(`UPDATE webhook_deliveries SET status = 'failed', attempts = $2, lease_until = NULL, next_attempt_at = NULL, last_status_code = NULL, last_error = $3 WHERE id = $1::uuid`, [
            id,
            attempts,
            INTERRUPTED,
          ]);
          return { status: 'failed' };
        }
      } else if (!row.due) {
        return { status: 'none' };
      }
      await q(`UPDATE webhook_deliveries SET attempts = $2, lease_until = now() + make_interval(secs => $3) WHERE id = $1::uuid`, [id, attempts, leaseMs / 1000]);
      return {
        status: 'claimed',
        delivery: { id, attemptsBefore: attempts, webhookId: row.webhookId, url: row.url, secretCipher: row.secretCipher, eventId: row.eventId, type: row.type, at: row.at, data: row.data },
      };
    });
  }

  /**
   * Records an attempt and what follows it, with the webhook's run of failures: a success ends the run, a failure
   * lengthens it, and a run of at least `disableAfterFailures` whose first failure is `disableAfterSeconds` old
   * disables the webhook with the reason. Returns that reason when this attempt disabled it.
   */
  async record(id: string, o: AttemptOutcome): Promise<{ disabledReason: string | null }> {
    return this.sql.transaction(async (q) => {
      const [owner] = await q<{ webhookId: string }>(
        `UPDATE webhook_deliveries
            SET attempts = $2, lease_until = NULL, last_status_code = $3, last_error = $4,
                status = CASE WHEN $5 THEN 'delivered' WHEN $6::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = $6::timestamptz, delivered_at = CASE WHEN $5 THEN now() END
          WHERE id = $1::uuid
         RETURNING webhook_id AS "webhookId"`,
        [id, o.attempt, o.statusCode, o.error, o.ok, o.nextAttemptAt],
      );
      if (!owner) return { disabledReason: null };
      await q(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, duration_ms, status_code, error) VALUES ($1::uuid, $2, $3, $4, $5)
         ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = now(), duration_ms = excluded.duration_ms, status_code = excluded.status_code, error = excluded.error`,
        [id, o.attempt, Math.round(o.durationMs), o.statusCode, o.error],
      );
      if (o.ok) {
        await q(`UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL, last_success_at = now() WHERE id = $1::uuid`, [owner.webhookId]);
        return { disabledReason: null };
      }
      const [w] = await q<{ disabledReason: string | null }>(
        `UPDATE webhooks
            SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, now()), last_failure_at = now(),
                enabled = enabled AND NOT (consecutive_failures + 1 >= $2 AND COALESCE(failing_since, now()) <= now() - make_interval(secs => $3)),
                disabled_at = CASE WHEN enabled AND consecutive_failures + 1 >= $2 AND COALESCE(failing_since, now()) <= now() - make_interval(secs => $3)
                                   THEN now() ELSE disabled_at END,
                disabled_reason = CASE WHEN enabled AND consecutive_failures + 1 >= $2 AND COALESCE(failing_since, now()) <= now() - make_interval(secs => $3)
                                       THEN format('disabled after %s failed delivery attempts in a row since %s; the last: %s',
                                                   consecutive_failures + 1, to_char(COALESCE(failing_since, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), $4::text)
                                       ELSE disabled_reason END
          WHERE id = $1::uuid
         RETURNING CASE WHEN NOT enabled AND disabled_at = now() THEN disabled_reason END AS "disabledReason"`,
        [owner.webhookId, o.disableAfterFailures, o.disableAfterSeconds, o.error ?? 'no reason'],
      );
      return { disabledReason: w?.disabledReason ?? null };
    });
  }

  /**
   * Pending deliveries whose attempt is overdue by more than `graceMs` and that no worker holds (or whose holder
   * stopped): their job was lost (the queue was away, or lost its data). The sweep queues them again.
   */
  async overdue(graceMs: number, limit: number): Promise<DueDelivery[]> {
    const rows = await this.sql.query<{ id: string; attempts: number; leased: boolean }>(
      `SELECT id, attempts, lease_until IS NOT NULL AS leased FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
          AND (lease_until IS NULL OR lease_until < now())
        ORDER BY next_attempt_at LIMIT $2`,
      [graceMs / 1000, limit],
      'webhooks.overdue',
    );
    // A delivery whose holder stopped is claimed as its next attempt (the interrupted one counted): that job's id.
    return rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + (r.leased ? 2 : 1), at: null }));
  }

  /** Forgets finished deliveries older than `days` (their attempts go with them). */
  async prune(days: number): Promise<number> {
    const rows = await this.sql.query(
      `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1) RETURNING 1`,
      [days],
    );
    return rows.length;
  }

  /** A webhook's deliveries, newest first, with their attempts; `status` filters. Callers check the webhook is the caller's. */
  async listByWebhook(webhookId: string, page: PageRequest, status?: WebhookDeliveryStatus): Promise<Page<WebhookDeliveryRecord>> {
    if (!isUuid(webhookId)) return { items: [] };
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.sql.query<Omit<WebhookDeliveryRecord, 'attemptLog'> & { attemptLog: (Omit<WebhookAttemptRecord, 'at'> & { at: string })[] }>(
      `SELECT d.id, d.webhook_id AS "webhookId", e.event_id AS "eventId", e.type, e.server_id AS "serverId", d.status, d.attempts,
              d.next_attempt_at AS "nextAttemptAt", d.last_status_code AS "lastStatusCode", d.last_error AS "lastError",
              d.delivered_at AS "deliveredAt", d.created_at AS "createdAt",
              COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'durationMs', a.duration_ms,
                                                          'statusCode', a.status_code, 'error', a.error) ORDER BY a.attempt)
                          FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS "attemptLog"
         FROM webhook_deliveries d JOIN server_events e ON e.id = d.event_id
        WHERE d.webhook_id = $1::uuid
          AND ($2::text IS NULL OR d.status = $2)
          AND ($3::timestamptz IS NULL OR (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
        ORDER BY d.created_at DESC, d.id DESC
        LIMIT $5`,
      [webhookId, status ?? null, c?.at ?? null, c?.id ?? null, page.pageSize + 1],
    );
    const items = rows.slice(0, page.pageSize).map((r) => ({ ...r, attemptLog: r.attemptLog.map((a) => ({ ...a, at: new Date(a.at) })) }));
    const last = items[items.length - 1];
    return rows.length > page.pageSize ? { items, nextPageToken: encodeCursor(LIST, { at: last.createdAt, id: last.id }) } : { items };
  }
}
