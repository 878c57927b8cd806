import { TenantLimits } from '@app/config';
import { DomainError, InFlightLimitError, Principal, ResultTooLargeError } from '@app/domain';
import { ByteCounter, formatBytes } from '@app/mcp';
import { Injectable } from '@nestjs/common';
import { TenantLimitsService } from '../tenants/tenant-limits.service';

/** What one tenant's calls in flight on this replica hold now. */
interface TenantLoad {
  calls: number;
  bytes: number;
}

/** Thrown from inside a transport's byte count to stop reading an answer; the call turns it into its refusal. */
class AnswerCutOff extends Error {}

/**
 * One call's share of the limits: counts its answer's bytes as they arrive, against the result limit of one call
 * and against what the tenant's calls in flight may hold together, and gives everything back when the call ends.
 */
export class CallAllowance implements ByteCounter {
  private bytes = 0;
  private refusal?: DomainError;
  private released = false;

  constructor(
    private readonly limits: TenantLimits,
    private readonly load: TenantLoad | undefined,
    private readonly onRelease: () => void,
  ) {}

  /** Counts `n` more bytes of the answer; throws once a limit is passed (the transport then cuts the answer off). */
  take(n: number): void {
    if (this.refusal) throw new AnswerCutOff(this.refusal.message);
    const max = this.limits.toolResultMaxBytes;
    if (this.bytes + n > max) {
      this.refusal = new ResultTooLargeError(
        `the tool's result exceeded ${formatBytes(max)} (${max} bytes, the limit toolResultMaxBytes): the registry stopped reading it and returns none of it`,
        { name: 'toolResultMaxBytes', value: max, variable: 'TOOL_RESULT_MAX_BYTES' },
      );
      throw new AnswerCutOff(this.refusal.message);
    }
    if (this.load) {
      const held = this.limits.maxResultBytesInFlight;
      if (this.load.bytes + n > held) {
        this.refusal = new InFlightLimitError(
          `the tenant's tool calls in flight hold ${formatBytes(held)} of results (${held} bytes, the limit maxResultBytesInFlight, on this ` +
            'replica): this call was stopped and returns nothing; try again when other calls have finished',
          1,
          { name: 'maxResultBytesInFlight', value: held, variable: 'TENANT_MAX_RESULT_BYTES_IN_FLIGHT' },
        );
        throw new AnswerCutOff(this.refusal.message);
      }
      this.load.bytes += n;
    }
    this.bytes += n;
  }

  /** The answer's bytes counted so far. */
  get counted(): number {
    return this.bytes;
  }

  /** The refusal that stopped the answer, if one did: what the call answers instead of the transport's error. */
  get refused(): DomainError | undefined {
    return this.refusal;
  }

  /** Gives the call's place and its bytes back to the tenant (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.load) {
      this.load.bytes -= this.bytes;
      this.load.calls--;
    }
    this.onRelease();
  }
}

/**
 * The per-tenant limits of tool calls on this replica: how many calls may run at once (maxCallsInFlight) and
 * how many bytes of answers they may hold together (maxResultBytesInFlight), and the size of one call's answer
 * (toolResultMaxBytes). Counted in this process: what they protect is this process's memory. The platform
 * administrator's calls are held to the result limit of one call only.
 */
@Injectable()
export class TenantCallLimits {
  private readonly loads = new Map<string, TenantLoad>();

  constructor(private readonly limits: TenantLimitsService) {}

  /** A place for one call of the principal, or InFlightLimitError (429) when its tenant has none free. */
  async enter(principal: Principal): Promise<CallAllowance> {
    if (principal.type !== 'tenant') return new CallAllowance(this.limits.defaults, undefined, () => undefined);
    const tenantId = principal.tenantId;
    const limits = await this.limits.of(tenantId);
    let load = this.loads.get(tenantId);
    if (!load) this.loads.set(tenantId, (load = { calls: 0, bytes: 0 }));
    if (load.calls >= limits.maxCallsInFlight) {
      throw new InFlightLimitError(
        `the tenant has ${load.calls} tool calls in flight on this replica, its limit (maxCallsInFlight ${limits.maxCallsInFlight}); ` +
          'try again when one has finished',
        1,
        { name: 'maxCallsInFlight', value: limits.maxCallsInFlight, variable: 'TENANT_MAX_CALLS_IN_FLIGHT' },
      );
    }
    load.calls++;
    const held = load;
    return new CallAllowance(limits, held, () => {
      if (held.calls === 0 && this.loads.get(tenantId) === held) this.loads.delete(tenantId);
    });
  }

  /** What the tenant's calls in flight hold on this replica now (tests, metrics). */
  loadOf(tenantId: string): { calls: number; bytes: number } {
    const load = this.loads.get(tenantId);
    return { calls: load?.calls ?? 0, bytes: load?.bytes ?? 0 };
  }
}
