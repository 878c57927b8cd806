#!/usr/bin/env node
// `npm run bench`: the benchmarks (bench/run.js). `npm run bench -- --quick` for a shorter run.
'use strict';
require('../bench/run')
  .main(process.argv.slice(2))
  .then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${err.stack ?? err}\n`);
      process.exit(1);
    },
  );
