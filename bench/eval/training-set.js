'use strict';
// The training part of bench/eval, what tuning may look at, and the search lib that ranks it.
const { requireSearch } = require('../lib/ts-require');

/** The search lib, the evaluation set's servers and its training queries (the holdout left out). */
function trainingSet() {
  const search = requireSearch();
  const { servers, queries } = search.loadEvalSet();
  return { search, servers, train: queries.filter((q) => q.split !== 'holdout') };
}

module.exports = { trainingSet };
