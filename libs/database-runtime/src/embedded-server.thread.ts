import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { EmbeddedSocketServer } from './embedded-socket-server';
import { embeddedStartParams } from './embedded-settings';

/**
 * The embedded database's thread: PGlite and the socket server that shares it between clients. Started by
 * EmbeddedPostgres with `{ dataDir, socketPath? }`; answers `{ socketPath }` or `{ port }` (loopback TCP) once it
 * serves (or `{ error }`), and on 'stop' closes everything and answers `{ stopped: true }`.
 */
async function main(): Promise<void> {
  const port = parentPort!;
  const { dataDir, socketPath } = workerData as { dataDir: string; socketPath?: string };
  let db: PGlite | undefined;
  let server: EmbeddedSocketServer | undefined;
  try {
    db = new PGlite({ dataDir, startParams: embeddedStartParams(PGlite.defaultStartParams) });
    server = new EmbeddedSocketServer(db);
    if (socketPath) {
      await server.startAt(socketPath);
      port.postMessage({ socketPath });
    } else {
      port.postMessage({ port: await server.start('127.0.0.1', 0) });
    }
  } catch (err) {
    port.postMessage({ error: (err as Error).message ?? String(err) });
    await db?.close().catch(() => undefined);
    port.close();
    return;
  }
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void (async () => {
      await server!.stop().catch(() => undefined);
      await db!.close().catch(() => undefined);
      port.postMessage({ stopped: true });
      port.close();
    })();
  });
}

void main();
