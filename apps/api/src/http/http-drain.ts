import { RUNTIME, Runtime } from '@app/platform';
import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problemTitle, problemType } from './problem';

/** After the calls and jobs, what is still being answered gets at least this long to be written. */
const LAST_ANSWERS_MS = 1000;

/**
 * The HTTP side of a stop. When it begins (SIGTERM) the server stops accepting connections and closes idle
 * keep-alive ones; a request that still arrives on an open connection is answered 503 with `Connection: close`
 * (a load balancer sends it to another replica); requests in flight are answered. Tool calls in flight finish
 * within the process's bound (ToolCallService waits for them); before the server is closed for good, the
 * requests still in flight get what is left of the bound (at least a second) to be answered.
 */
@Injectable()
export class HttpDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(HttpDrain.name);
  private server?: Server;
  private inFlight = 0;
  private idle?: () => void;

  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  /** Counts requests in flight, and refuses new ones once the stop has begun. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (this.runtime.shutdown.stopping) {
        res.setHeader('Connection', 'close');
        res.setHeader('Retry-After', '1');
        res.status(503).type(PROBLEM_CONTENT_TYPE).send(
          JSON.stringify({
            type: problemType(503),
            title: problemTitle(503),
            status: 503,
            detail: 'the registry is stopping; send the request again (another replica will answer it)',
          }),
        );
        return;
      }
      this.inFlight++;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        if (--this.inFlight === 0) this.idle?.();
      };
      res.once('finish', end);
      res.once('close', end);
      next();
    };
  }

  /** The server this drains (set once it exists). */
  attach(server: Server): void {
    this.server = server;
  }

  /** The stop begins: no new connections, idle ones closed, new requests refused. */
  begin(): void {
    if (this.runtime.shutdown.stopping && !this.server?.listening) return;
    this.runtime.shutdown.begin();
    if (this.server?.listening) {
      this.logger.log({ inFlight: this.inFlight }, 'no longer accepting requests; answering those in flight');
      this.server.close();
      this.server.closeIdleConnections();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.begin();
    if (this.inFlight === 0) return;
    const waitMs = Math.max(LAST_ANSWERS_MS, this.runtime.shutdown.remainingMs());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => (this.idle = resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
    clearTimeout(timer);
    if (this.inFlight > 0) this.logger.warn({ inFlight: this.inFlight }, 'requests still in flight at the end of the shutdown bound are cut');
  }
}
