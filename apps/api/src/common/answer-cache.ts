import { ChangeFeed, FeedChange } from '@app/database';
import { isAdmin, maySee, Principal } from '@app/domain';
import { Metrics } from '@app/observability';
import { METRICS } from '@app/platform';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Response } from 'express';
import { createHash } from 'node:crypto';

/** What the kept answers may take, in bytes of JSON. */
export const ANSWER_CACHE_MAX_BYTES = 32 * 1024 * 1024;
/** A single answer larger than this is not kept. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Servers whose last change is remembered one by one; past this, a change is treated as a change to all. */
const MAX_REMEMBERED = 50_000;

/** Who an answer is for: one server's answer, or a listing seen by the admin or by one tenant. */
export type AnswerSubject = { serverId: string; tenantId: string | null } | { audience: 'admin' | { tenantId: string } };

/** A JSON answer ready to send: its bytes and its (weak) entity tag, made once however often it is sent. */
export interface Answer {
  body: Buffer;
  etag: string;
}

/** The answer for a value: JSON, with the weak ETag Express would compute for it. */
export function toAnswer(value: unknown): Answer {
  const body = Buffer.from(JSON.stringify(value));
  const hash = createHash('sha1').update(body).digest('base64').slice(0, 27);
  return { body, etag: `W/"${body.length.toString(16)}-${hash}"` };
}

/** Sends an answer with status 200 (a conditional GET whose tag still matches gets 304 from Express). */
export function sendAnswer(res: Response, answer: Answer): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('ETag', answer.etag);
  res.send(answer.body);
}

interface Entry {
  answer: Answer;
  subject: AnswerSubject;
}

/** The audience a principal's listings are kept for. */
export function audienceOf(principal: Principal): 'admin' | { tenantId: string } {
  return isAdmin(principal) ? 'admin' : { tenantId: principal.tenantId };
}

function audienceKey(a: 'admin' | { tenantId: string }): string {
  return a === 'admin' ? 'admin' : `t:${a.tenantId}`;
}

/**
 * The read answers of the LLM-facing and REST APIs (one server's MCPServerInfo, a page of a listing), kept as
 * JSON text and dropped the moment the registry changes: the change feed delivers each committed change to a
 * server or its tools within milliseconds (see ChangeFeed), and a write through this process drops everything
 * kept before it answers. An answer is kept only if nothing it depends on changed while it was read, and only
 * while the feed is live, so a kept answer is never older than the last change the feed has delivered.
 */
@Injectable()
export class AnswerCache implements OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  /** The keys of the kept answers by what they depend on: a server's, or an audience's listings. */
  private readonly serverKeys = new Map<string, Set<string>>();
  private readonly listingKeys = new Map<string, Set<string>>();
  private bytes = 0;
  /** Counts changes; a read remembers it when it starts (mark()) and may keep its answer only if nothing it depends on moved past it. */
  private epoch = 0;
  private everythingAt = 0;
  private readonly serverAt = new Map<string, number>();
  private readonly audienceAt = new Map<string, number>();
  /** The last change to any server of the platform (seen by every audience). */
  private platformAt = 0;
  private anyAt = 0;
  private writes = 0;
  private readonly unsubscribe: () => void;
  readonly stats = { hits: 0, misses: 0, bypassed: 0, kept: 0, refused: 0, dropped: 0 };

  constructor(
    private readonly feed: ChangeFeed,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {
    this.unsubscribe = feed.subscribe({
      changes: (changes) => {
        for (const c of changes) this.changed(c);
      },
      // Live or not any more: nothing kept before is trusted.
      live: () => this.clear(),
      gap: () => this.clear(),
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    this.clear();
  }

  /** Whether answers are kept now (the change feed is live, and no write through this process is under way). */
  get active(): boolean {
    return this.feed.live && this.writes === 0;
  }

  /** Called before reading what an answer is made of; the result goes to put(). */
  private mark(): number {
    return this.epoch;
  }

  /** The kept answer, if `principal` may see it. */
  private get(key: string, principal: Principal): Answer | undefined {
    if (!this.active) {
      this.stats.bypassed++;
      this.metrics.answerCacheLookups.inc({ result: 'bypass' });
      return undefined;
    }
    const entry = this.entries.get(key);
    if (!entry) {
      this.stats.misses++;
      this.metrics.answerCacheLookups.inc({ result: 'miss' });
      return undefined;
    }
    const s = entry.subject;
    if ('serverId' in s && !maySee(principal, s.tenantId)) return undefined;
    // Most recently used last: the oldest is dropped first when room is needed.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.stats.hits++;
    this.metrics.answerCacheLookups.inc({ result: 'hit' });
    return entry.answer;
  }

  /**
   * The kept answer for `key` if `principal` may see it, else a new one made from what `read` returns (and kept
   * unless something it depends on changed while it was read).
   */
  async answer(key: string, principal: Principal, read: () => Promise<{ value: unknown; subject: AnswerSubject }>): Promise<Answer> {
    const kept = this.get(key, principal);
    if (kept !== undefined) return kept;
    const mark = this.mark();
    const { value, subject } = await read();
    const answer = toAnswer(value);
    this.put(key, mark, answer, subject);
    return answer;
  }

  /** Keeps an answer read since `mark`, unless something it depends on changed meanwhile. */
  private put(key: string, mark: number, answer: Answer, subject: AnswerSubject): void {
    if (!this.active || answer.body.length > MAX_ANSWER_BYTES || this.changedSince(mark, subject)) {
      this.stats.refused++;
      return;
    }
    this.remove(key);
    this.entries.set(key, { answer, subject });
    this.bytes += answer.body.length;
    const [index, slot] = this.slot(subject);
    index.set(slot, (index.get(slot) ?? new Set()).add(key));
    this.stats.kept++;
    for (const [k] of this.entries) {
      if (this.bytes <= ANSWER_CACHE_MAX_BYTES) break;
      this.remove(k);
    }
    this.metrics.answerCacheBytes.set(this.bytes);
  }

  private changedSince(mark: number, subject: AnswerSubject): boolean {
    if (this.everythingAt > mark) return true;
    if ('serverId' in subject) return (this.serverAt.get(subject.serverId) ?? 0) > mark;
    if (subject.audience === 'admin') return this.anyAt > mark;
    return this.platformAt > mark || (this.audienceAt.get(audienceKey(subject.audience)) ?? 0) > mark;
  }

  /** A write through this process begins: nothing kept before it is served, and nothing is kept until it ends. */
  beginWrite(): () => void {
    this.writes++;
    this.clear();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.writes--;
      this.clear();
    };
  }

  /** A change was committed: drop what depends on it. */
  changed(change: Pick<FeedChange, 'serverId' | 'tenantId'>): void {
    const at = ++this.epoch;
    this.anyAt = at;
    if (this.serverAt.size >= MAX_REMEMBERED || this.audienceAt.size >= MAX_REMEMBERED) {
      this.serverAt.clear();
      this.audienceAt.clear();
      this.everythingAt = at;
    }
    this.serverAt.set(change.serverId, at);
    if (change.tenantId === null) this.platformAt = at;
    else this.audienceAt.set(audienceKey({ tenantId: change.tenantId }), at);
    const drop = (keys: Set<string> | undefined) => {
      for (const key of [...(keys ?? [])]) this.remove(key);
    };
    drop(this.serverKeys.get(change.serverId));
    drop(this.listingKeys.get('admin'));
    if (change.tenantId === null) for (const keys of [...this.listingKeys.values()]) drop(keys);
    else drop(this.listingKeys.get(audienceKey({ tenantId: change.tenantId })));
  }

  /** Where the keys of answers with this subject are listed: the index, and the entry in it. */
  private slot(subject: AnswerSubject): [Map<string, Set<string>>, string] {
    return 'serverId' in subject ? [this.serverKeys, subject.serverId] : [this.listingKeys, audienceKey(subject.audience)];
  }

  /** Drops every kept answer (listening started or stopped, or a write through this process). */
  clear(): void {
    this.epoch++;
    this.everythingAt = this.epoch;
    this.serverAt.clear();
    this.audienceAt.clear();
    this.stats.dropped += this.entries.size;
    this.entries.clear();
    this.serverKeys.clear();
    this.listingKeys.clear();
    this.bytes = 0;
    this.metrics.answerCacheBytes.set(0);
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.answer.body.length;
    this.stats.dropped++;
    this.metrics.answerCacheBytes.set(this.bytes);
    const [index, slot] = this.slot(old.subject);
    const keys = index.get(slot);
    keys?.delete(key);
    if (keys?.size === 0) index.delete(slot);
  }
}
