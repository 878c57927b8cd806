import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The console is served by the API process at `/`: built into dist/console, assets under /assets with content
// hashes in their names (cached for a year), index.html revalidated on every load. Nothing is fetched from
// another host, and no inline script or style is emitted (the API's CSP forbids both).
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    target: 'es2022',
  },
  server: {
    // `npx vite apps/console` for work on the console: the API on its default port behind the dev server.
    proxy: { '/api': 'http://127.0.0.1:3000', '/docs-json': 'http://127.0.0.1:3000' },
  },
});
