import { AuditEventInput, DiscoveryStateRepository } from '@app/database';
import { DiscoveryProducer, DiscoveryTarget, DiscoveryTrigger, QueueUnavailableNowError } from '@app/queue';
import { Injectable, Logger } from '@nestjs/common';

const idOf = (t: DiscoveryTarget): string => (typeof t === 'string' ? t : t.id);

/**
 * The one way to ask for a discovery: a registration, a change of how a server is reached, an explicit request,
 * an authorization, a platform server at start-up, a tool list that changed. It stamps the request with the
 * database's clock (never the asking host's) and queues the job through the one producer.
 */
@Injectable()
export class DiscoveryRequests {
  private readonly logger = new Logger(DiscoveryRequests.name);

  constructor(
    private readonly state: DiscoveryStateRepository,
    private readonly producer: DiscoveryProducer,
  ) {}

  /**
   * Asks for a discovery of each enabled server among `targets`: it shows DISCOVERING ("discovery queued") with
   * `discoveryRequestedAt` set by the database, and its job is queued. A disabled or deleted server is left alone.
   * The queue being away is not an error: the row says what is due, and the workers' sweep queues it.
   * Returns the servers asked for and the database's time of each request. `audit`: the records of an explicit request,
   * written with the request itself (for the servers asked for only), both or neither.
   */
  async request(targets: DiscoveryTarget[], trigger: DiscoveryTrigger, audit: AuditEventInput[] = []): Promise<Map<string, Date>> {
    if (targets.length === 0) return new Map();
    const stamped = await this.state.markRequestedMany(targets.map(idOf), audit);
    const due = targets.filter((t) => stamped.has(idOf(t)));
    try {
      if (due.length === 1) await this.producer.request(due[0], trigger);
      else if (due.length > 1) await this.producer.requestMany(due, trigger);
    } catch (err) {
      // While the queue is away its outage is logged once (QueueConnection), not once per request.
      const level = err instanceof QueueUnavailableNowError ? 'debug' : 'warn';
      const which = due.length === 1 ? { serverId: idOf(due[0]) } : { servers: due.length };
      this.logger[level]({ ...which, trigger, err: (err as Error).message }, 'discovery could not be queued; the sweep will retry it');
    }
    return stamped;
  }
}
