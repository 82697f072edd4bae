/**
 * Preloaded by every npm script that runs a .ts file (`node --require ./tools/preflight.cjs <script>.ts`), before any
 * TypeScript loads: refuses, with one line saying what to do and exit status 1, a Node that cannot run the sources and
 * a benchmark or test tool on a production install (tools/preflight-rules.cjs).
 */
'use strict';
const { refusal } = require('./preflight-rules.cjs');

// npm runs every script in the checkout, which is also where `./tools/preflight.cjs` was found.
const message = refusal(process.versions.node, process.cwd(), process.argv[1]);
if (message !== null) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
