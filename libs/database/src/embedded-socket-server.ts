import type { PGlite } from '@electric-sql/pglite';
import { createServer, Server, Socket } from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** Messages after which the client waits for answers: a batch ends there. */
const BATCH_END = new Set([
  0x53, // S Sync
  0x51, // Q Query
  0x48, // H Flush
  0x63, // c CopyDone
  0x66, // f CopyFail
]);
const TERMINATE = 0x58; // X
const FLUSH = 0x48;

interface Connection {
  id: number;
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  closed: boolean;
  pending: Buffer[];
}

interface Batch {
  conn: Connection;
  bytes: Uint8Array;
  /** The batch ended with Flush: the client will send the rest of its exchange before Sync. */
  open: boolean;
}

/**
 * Serves one PGlite database to many PostgreSQL wire-protocol clients (Prisma's
 * pg adapter, BullMQ's PostgreSQL backend, the migrator) on a loopback socket.
 *
 * PGlite is one backend, one session. Each client's messages are grouped up to
 * the message after which it waits for answers (Sync, Query, Flush) and a group
 * runs whole, so one client's Parse/Bind/Execute never interleave with
 * another's (an interleaving loses unnamed statements and portals). While a
 * client holds a transaction open, or stopped at a Flush mid-exchange, only that
 * client's groups run; if it disconnects then, its transaction is rolled back.
 */
export class EmbeddedSocketServer {
  private server?: Server;
  private readonly queue: Batch[] = [];
  private running = false;
  /** The connection that owns the session (open transaction or unfinished exchange). */
  private owner?: Connection;
  private nextId = 1;
  private readonly connections = new Set<Connection>();

  constructor(private readonly db: PGlite) {}

  async start(host: string, port = 0): Promise<number> {
    await this.db.waitReady;
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const conn: Connection = { id: this.nextId++, socket, buffer: Buffer.alloc(0), started: false, closed: false, pending: [] };
    this.connections.add(conn);
    socket.on('data', (chunk) => {
      conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, chunk]) : chunk;
      this.parse(conn);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.close(conn));
  }

  private parse(conn: Connection): void {
    for (;;) {
      const buf = conn.buffer;
      if (!conn.started) {
        if (buf.length < 8) return;
        const length = buf.readInt32BE(0);
        const code = buf.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          conn.buffer = buf.subarray(8);
          conn.socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          conn.socket.destroy();
          return;
        }
        if (buf.length < length) return;
        conn.buffer = buf.subarray(length);
        conn.started = true;
        this.enqueue({ conn, bytes: new Uint8Array(buf.subarray(0, length)), open: false });
        continue;
      }
      if (buf.length < 5) return;
      const type = buf[0];
      const length = 1 + buf.readInt32BE(1);
      if (buf.length < length) return;
      const message = buf.subarray(0, length);
      conn.buffer = buf.subarray(length);
      if (type === TERMINATE) {
        conn.socket.end();
        return;
      }
      conn.pending.push(Buffer.from(message));
      if (BATCH_END.has(type)) {
        const bytes = new Uint8Array(Buffer.concat(conn.pending));
        conn.pending = [];
        this.enqueue({ conn, bytes, open: type === FLUSH });
      }
    }
  }

  private enqueue(batch: Batch): void {
    this.queue.push(batch);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const index = this.owner ? this.queue.findIndex((b) => b.conn === this.owner) : 0;
        if (index < 0 || this.queue.length === 0) return;
        const [batch] = this.queue.splice(index, 1);
        if (batch.conn.closed) continue;
        await this.run(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Batch): Promise<void> {
    const { conn } = batch;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(batch.bytes, {
          onRawData: (data: Uint8Array) => {
            if (!conn.closed && data.length > 0) conn.socket.write(Buffer.from(data));
          },
        }),
      );
    } catch {
      conn.socket.destroy();
    }
    this.owner = batch.open || this.db.isInTransaction() ? conn : undefined;
    if (this.owner === conn && conn.closed) await this.release(conn);
  }

  private close(conn: Connection): void {
    conn.closed = true;
    this.connections.delete(conn);
    if (this.owner === conn && !this.running) void this.release(conn).then(() => this.drain());
  }

  /** A client left holding the session: roll its transaction back and let the others in. */
  private async release(conn: Connection): Promise<void> {
    if (this.owner !== conn) return;
    this.owner = undefined;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
  }
}
