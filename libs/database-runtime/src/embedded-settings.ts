/**
 * PostgreSQL's memory settings for the embedded database. initdb writes the settings of a server that owns the
 * machine (shared_buffers 128MB, max_connections 100), and in WebAssembly PGlite touches all of its shared memory
 * at start: the buffer pool alone kept 150 MiB of the process resident. The embedded database holds one user's
 * registry (a few MiB of rows) and serves one session, so a small pool keeps what is read often; the rest comes
 * from the files through the operating system's page cache.
 */
export const EMBEDDED_SETTINGS: readonly string[] = ['shared_buffers=16MB', 'wal_buffers=1MB', 'temp_buffers=1MB', 'max_connections=5'];

/** PGlite's start parameters for the embedded database: its defaults (`PGlite.defaultStartParams`) and the settings above. */
export function embeddedStartParams(defaults: readonly string[], settings: readonly string[] = EMBEDDED_SETTINGS): string[] {
  return [...defaults, ...settings.flatMap((s) => ['-c', s])];
}
