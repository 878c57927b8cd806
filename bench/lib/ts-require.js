'use strict';
// Lets a bench process require the TypeScript sources of a lib (libs/search) directly: each .ts file is
// compiled to CommonJS with swc when it is loaded. Only the bench's own child processes install this.
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');

const ROOT = path.resolve(__dirname, '..', '..');

function install() {
  if (require.extensions['.ts']) return;
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
