'use strict';
// An HTTP answer as the scripts and the benchmarks look at it: its status, its body as text, and that body
// as JSON when it is JSON.

/** `{ status, json, text }`: `json` is undefined when the body is empty or not JSON. */
function httpAnswer(status, text) {
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status, json, text };
}

module.exports = { httpAnswer };
