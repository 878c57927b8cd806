'use strict';
// Lets a bench process require the TypeScript sources of a lib (libs/search) directly: each .ts file is
// compiled to CommonJS with swc when it is loaded. Only the bench's own child processes install this.
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');

const ROOT = path.resolve(__dirname, '..', '..');

function install() {
  if (require.extensions['.ts']) return;
  // The libs' own imports of each other (`@app/domain`), as tsconfig.json's paths map them.
  const Module = require('node:module');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const lib = /^@app\/([a-z-]+)$/.exec(request);
    if (lib) return path.join(ROOT, 'libs', lib[1], 'src', 'index.ts');
    return resolve.call(this, request, ...rest);
  };
  require.extensions['.ts'] = (module, filename) => {
    const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022', keepClassNames: true },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}

/** The search lib, from its sources. */
function requireSearch() {
  install();
  return require(path.join(ROOT, 'libs/search/src/index.ts'));
}

module.exports = { install, requireSearch, ROOT };
