import type { PGlite } from '@electric-sql/pglite';
import { chmodSync, rmSync } from 'node:fs';
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
const QUERY = 0x51; // Q
const PARSE = 0x50; // P
const NOTIFICATION = 0x41; // A NotificationResponse
/** Found in any LISTEN or UNLISTEN whatever the case of its first letter (the usual spellings). */
const LISTEN_WORD = [Buffer.from('ISTEN'), Buffer.from('isten')];

interface Connection {
  id: number;
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  closed: boolean;
  pending: Buffer[];
  /** The channels this client has asked to LISTEN on. */
  channels: Set<string>;
  /** LISTEN / UNLISTEN statements among the pending messages. */
  listens?: { listen: boolean; channel: string }[];
}

interface Batch {
  conn: Connection;
  bytes: Uint8Array;
  /** The batch ended with Flush: the client will send the rest of its exchange before Sync. */
  open: boolean;
  /** LISTEN / UNLISTEN statements in the batch, in order: a channel, or '*' for UNLISTEN *. */
  listens?: { listen: boolean; channel: string }[];
}

/** Removes SQL comments (`-- …` and `/* … *\/`), leaving string literals alone. */
function stripComments(sql: string): string {
  return sql.replace(/('(?:[^']|'')*')|--[^\n]*|\/\*[\s\S]*?\*\//g, (m, literal: string | undefined) => literal ?? ' ');
}

/**
 * The LISTEN / UNLISTEN statements of a query text (as PostgreSQL names the channel: an unquoted name folds
 * to lower case). Other statements are ignored.
 */
export function listenStatements(sql: string): { listen: boolean; channel: string }[] {
  const found: { listen: boolean; channel: string }[] = [];
  for (const statement of stripComments(sql).split(';')) {
    const m = /^\s*(UN)?LISTEN\s+("(?:[^"]|"")+"|\*|[A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*)\s*$/i.exec(statement);
    if (!m) continue;
    const name = m[2];
    const channel = name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name === '*' ? '*' : name.toLowerCase();
    if (channel === '*' && !m[1]) continue;
    found.push({ listen: !m[1], channel });
  }
  return found;
}

/** The query text of a Query or Parse message, when it may hold a LISTEN or UNLISTEN (else undefined, cheaply). */
function listenText(message: Buffer): string | undefined {
  if (!LISTEN_WORD.some((w) => message.includes(w, 5))) return undefined;
  let start = 5;
  if (message[0] === PARSE) start = message.indexOf(0, 5) + 1; // after the statement's name
  const end = message.indexOf(0, start);
  return message.toString('utf8', start, end < 0 ? message.length : end);
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
 *
 * Notifications: the shared session LISTENs on every channel any client asked
 * for, and PostgreSQL hands a notification to the session in whichever client's
 * answer happens to be running. Each NotificationResponse is taken out of that
 * answer and sent to the clients that asked for its channel, as a PostgreSQL
 * server does. A client's UNLISTEN, or its leaving, unsubscribes the session only
 * from channels that no other client still wants. A client's LISTEN counts from
 * the moment it runs, even inside a transaction later rolled back.
 */
export class EmbeddedSocketServer {
  private server?: Server;
  private readonly queue: Batch[] = [];
  private running = false;
  /** The connection that owns the session (open transaction or unfinished exchange). */
  private owner?: Connection;
  private nextId = 1;
  private readonly connections = new Set<Connection>();
  /** A client's LISTEN, UNLISTEN or leaving may have made the session's channels differ from what clients want. */
  private listensChanged = false;
  private stopped = false;

  constructor(private readonly db: PGlite) {}

  /** Serves on a TCP port (0: any free one), answering the port. */
  async start(host: string, port = 0): Promise<number> {
    await this.listen((server, done) => server.listen(port, host, done));
    return (this.server!.address() as { port: number }).port;
  }

  /**
   * Serves on a Unix domain socket at `path` (a file left by a process that died is replaced), which only the
   * file's owner may connect to: the database trusts whoever connects.
   */
  async startAt(path: string): Promise<void> {
    rmSync(path, { force: true });
    await this.listen((server, done) => server.listen(path, done));
    chmodSync(path, 0o600);
  }

  private async listen(bind: (server: Server, done: () => void) => void): Promise<void> {
    await this.db.waitReady;
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      bind(server, () => resolve());
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    if (socket.remoteFamily) socket.setNoDelay(true);
    const conn: Connection = { id: this.nextId++, socket, buffer: Buffer.alloc(0), started: false, closed: false, pending: [], channels: new Set() };
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
      if (type === QUERY || type === PARSE) {
        const text = listenText(message);
        if (text !== undefined) for (const l of listenStatements(text)) (conn.listens ??= []).push(l);
      }
      if (BATCH_END.has(type)) {
        const bytes = new Uint8Array(Buffer.concat(conn.pending));
        conn.pending = [];
        const listens = conn.listens;
        conn.listens = undefined;
        this.enqueue({ conn, bytes, open: type === FLUSH, listens });
      }
    }
  }

  private enqueue(batch: Batch): void {
    this.queue.push(batch);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      for (;;) {
        if (this.stopped) return;
        if (this.listensChanged && !this.owner) await this.syncListens();
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
    const answer = new AnswerSplitter((bytes) => this.send(conn, bytes), (message) => this.notify(message));
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(batch.bytes, {
          onRawData: (data: Uint8Array) => answer.push(data),
        }),
      );
      answer.end();
    } catch {
      conn.socket.destroy();
    }
    if (batch.listens) this.listened(conn, batch.listens);
    this.owner = batch.open || this.db.isInTransaction() ? conn : undefined;
    if (this.owner === conn && conn.closed) await this.release(conn);
  }

  private send(conn: Connection, bytes: Buffer): void {
    if (!conn.closed && bytes.length > 0) conn.socket.write(bytes);
  }

  /** A NotificationResponse: to every client listening on its channel. */
  private notify(message: Buffer): void {
    const channelEnd = message.indexOf(0, 9);
    const channel = message.toString('utf8', 9, channelEnd < 0 ? message.length : channelEnd);
    for (const c of this.connections) if (c.channels.has(channel)) this.send(c, message);
  }

  /** Records a client's LISTEN / UNLISTEN statements (the session's own channels are set right in syncListens). */
  private listened(conn: Connection, listens: { listen: boolean; channel: string }[]): void {
    for (const { listen, channel } of listens) {
      if (listen) conn.channels.add(channel);
      else if (channel === '*') conn.channels.clear();
      else conn.channels.delete(channel);
    }
    this.listensChanged = true;
  }

  /**
   * Makes the shared session listen on exactly the channels its clients want, outside any transaction. The
   * session is asked what it listens on: a LISTEN rolled back with its transaction, or one client's UNLISTEN of a
   * channel another still wants, leaves it different from what the clients asked for.
   */
  private async syncListens(): Promise<void> {
    try {
      if (this.db.isInTransaction()) return;
      this.listensChanged = false;
      const wanted = new Set<string>();
      for (const c of this.connections) for (const ch of c.channels) wanted.add(ch);
      // Not under runExclusive: query and exec take PGlite's lock themselves. This runs from drain(), so no
      // client's batch runs meanwhile.
      const { rows } = await this.db.query<{ ch: string }>('SELECT pg_listening_channels() AS ch');
      const listening = new Set(rows.map((r) => r.ch));
      const quote = (ch: string) => `"${ch.replace(/"/g, '""')}"`;
      const statements = [
        ...[...wanted].filter((ch) => !listening.has(ch)).map((ch) => `LISTEN ${quote(ch)}`),
        ...[...listening].filter((ch) => !wanted.has(ch)).map((ch) => `UNLISTEN ${quote(ch)}`),
      ];
      if (statements.length > 0) await this.db.exec(statements.join('; '));
    } catch {
      // Tried again after the next batch (unless the database is closing).
      this.listensChanged = !this.stopped;
    }
  }

  private close(conn: Connection): void {
    conn.closed = true;
    this.connections.delete(conn);
    if (this.stopped) return;
    if (conn.channels.size > 0) this.listensChanged = true;
    if (this.owner === conn && !this.running) void this.release(conn).then(() => this.drain());
    else if (this.listensChanged && !this.running) void this.drain();
  }

  /** A client left holding the session: roll its transaction back and let the others in. */
  private async release(conn: Connection): Promise<void> {
    if (this.owner !== conn) return;
    this.owner = undefined;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
  }
}

/**
 * Cuts an answer from PGlite into PostgreSQL messages as it streams out: NotificationResponses go to `notify`,
 * everything else to `send` in order (a run of messages at a time, copied: PGlite reuses its buffers).
 */
class AnswerSplitter {
  private rest?: Buffer;

  constructor(
    private readonly send: (bytes: Buffer) => void,
    private readonly notify: (message: Buffer) => void,
  ) {}

  push(data: Uint8Array): void {
    if (data.length === 0) return;
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const buf = this.rest ? Buffer.concat([this.rest, view]) : view;
    this.rest = undefined;
    let start = 0;
    let pos = 0;
    while (pos + 5 <= buf.length) {
      const length = 1 + buf.readInt32BE(pos + 1);
      if (pos + length > buf.length) break;
      if (buf[pos] === NOTIFICATION) {
        if (pos > start) this.send(Buffer.from(buf.subarray(start, pos)));
        this.notify(Buffer.from(buf.subarray(pos, pos + length)));
        start = pos + length;
      }
      pos += length;
    }
    if (pos > start) this.send(Buffer.from(buf.subarray(start, pos)));
    if (pos < buf.length) this.rest = Buffer.from(buf.subarray(pos));
  }

  /** Whatever is left (never a whole message) goes out as it is. */
  end(): void {
    if (this.rest) this.send(this.rest);
    this.rest = undefined;
  }
}
