import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { PRISMA } from '../tokens';

/** One discovery of one server: when, how it ended, what changed. */
export interface DiscoveryRunRecord {
  id: string;
  serverId: string;
  trigger: string;
  attempt: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  outcome: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  error: string | null;
  toolCount: number | null;
  added: string[];
  removed: string[];
  changed: string[];
  /** Tools the server listed that were not valid and were left out, with the reason. */
  dropped: DroppedTool[];
  /** The end of a stdio server's stderr during the run (bounded). */
  stderr: string | null;
  /** sha256 of the listing's canonical JSON (a successful run's). */
  toolsHash: string | null;
  /** For each changed tool, the fields whose value changed and its hashes before and after. */
  changes: ToolChange[];
  /** Tools whose new or changed definition this run held for a decision. */
  held: string[];
}

/** A changed tool as a run records it. */
export interface ToolChange {
  name: string;
  fields: string[];
  hash: string;
  previousHash: string;
}

/** A tool left out of a discovery: where it was in the listing, its name if it had one, and why. */
export interface DroppedTool {
  index: number;
  name?: string;
  reason: string;
}

function droppedOf(value: unknown): DroppedTool[] {
  return Array.isArray(value) ? (value as DroppedTool[]) : [];
}

function changesOf(value: unknown): ToolChange[] {
  return Array.isArray(value) ? (value as ToolChange[]) : [];
}

const LIST = 'discovery-runs';

/** Discovery history. Callers check that the caller may see the server first. */
@Injectable()
export class DiscoveryRunRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** A server's runs, newest first, keyset-paginated on (started_at, id). */
  async listByServer(serverId: string, page: PageRequest): Promise<Page<DiscoveryRunRecord>> {
    if (!isUuid(serverId)) return { items: [] };
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.prisma.discoveryRun.findMany({
      where: { serverId, ...(c ? { OR: [{ startedAt: { lt: c.at } }, { startedAt: c.at, id: { lt: c.id } }] } : {}) },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: page.pageSize + 1,
      select: {
        id: true,
        serverId: true,
        trigger: true,
        attempt: true,
        startedAt: true,
        finishedAt: true,
        durationMs: true,
        outcome: true,
        error: true,
        toolCount: true,
        added: true,
        removed: true,
        changed: true,
        dropped: true,
        stderr: true,
        toolsHash: true,
        changes: true,
        held: true,
      },
    });
    return toPage(
      rows.map((r) => ({ ...r, dropped: droppedOf(r.dropped), changes: changesOf(r.changes), held: r.held ?? [] })),
      page.pageSize,
      LIST,
      (r) => ({ at: r.startedAt, id: r.id }),
    );
  }

  /** Fails every run of a server still marked RUNNING (its worker stopped); returns how many. */
  async failRunning(serverId: string, error: string): Promise<number> {
    const { count } = await this.prisma.$executeRaw`
      UPDATE discovery_runs
         SET outcome = 'FAILED', finished_at = now(), error = ${error},
             duration_ms = (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::int
       WHERE server_id = ${serverId}::uuid AND outcome = 'RUNNING'`.then((n) => ({ count: n }));
    return count;
  }

  /** How many runs of a server started at or after a moment (the attempts spent on one request). */
  async countSince(serverId: string, since: Date): Promise<number> {
    return this.prisma.discoveryRun.count({ where: { serverId, startedAt: { gte: since } } });
  }
}
