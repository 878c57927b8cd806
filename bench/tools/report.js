#!/usr/bin/env node
'use strict';
// `node bench/tools/report.js [--take=<figure>:<results file>]... [results file]`
//
// Evaluates a stored run (bench/results.json by default) against the targets of this checkout's bench/lib/report.js,
// prints its table, and writes the targets and the table back into the file: a run's figures compared with targets
// restated after it. `--take=embeddedIdle:/tmp/other.json` first copies one figure from another run's file (a section
// run on its own with `--only`), and records where it came from under `figuresFrom`.
const fs = require('node:fs');
const path = require('node:path');
const report = require('../lib/report');

function main(argv) {
  const takes = [];
  let file = path.join(__dirname, '..', 'results.json');
  for (const a of argv) {
    if (a.startsWith('--take=')) {
      const [figure, from] = [a.slice(7, a.indexOf(':')), a.slice(a.indexOf(':') + 1)];
      if (!figure || !from || a.indexOf(':') < 0) throw new Error(`--take: expected <figure>:<results file>, got ${a.slice(7)}`);
      takes.push({ figure, from });
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else file = a;
  }
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const { figure, from } of takes) {
    const other = JSON.parse(fs.readFileSync(from, 'utf8'));
    if (!other.figures?.[figure]) throw new Error(`${from} has no figure ${figure}`);
    results.figures[figure] = other.figures[figure];
    results.figuresFrom = { ...results.figuresFrom, [figure]: { date: other.date, command: other.command, quick: other.quick, source: other.source, machine: other.machine } };
  }
  const { rows, targets } = report.build(results.figures);
  results.targets = targets;
  results.table = rows;
  results.targetsEvaluatedAt = new Date().toISOString();
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`${report.table(rows)}\n\n`);
  const met = targets.filter((t) => t.met === true).length;
  const missed = targets.filter((t) => t.met === false).map((t) => t.name);
  process.stdout.write(`targets: ${met} met, ${missed.length} missed, ${targets.length - met - missed.length} not measured (figures of ${results.date}, ${results.source?.commit ?? 'unknown commit'})\n`);
  for (const m of missed) process.stdout.write(`  missed: ${m}\n`);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
