// Runs the TypeScript sources directly in a child process (`node -r ./test/support/swc-register.cjs
// apps/worker/src/main.ts`): the same transform the tests use, and the @app/* path aliases. Tests that
// need a real second process run today's code this way, never a stale build.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const ROOT = path.resolve(__dirname, '..', '..');
const ALIAS = /^@app\/([a-z-]+)$/;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const m = ALIAS.exec(request);
  return resolve.call(this, m ? path.join(ROOT, 'libs', m[1], 'src', 'index.ts') : request, parent, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
