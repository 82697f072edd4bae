/**
 * The rules of tools/preflight.cjs, pure but for reading package.json and node_modules: which Node can run the
 * TypeScript sources (type stripping needs 22.18+ or 24), and whether a benchmark or test tool (bench/, test/) has the
 * development dependencies it imports (a production install, `npm ci --omit=dev`, lacks them). Plain CommonJS, so it
 * loads on any Node.
 */
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join, relative, resolve, sep } = require('node:path');

/** The range package.json's `engines.node` states, in words. */
const SUPPORTED = 'Node.js 22.18 or later 22.x, or 24';

/** True when `version` ("22.18.0") can run the TypeScript sources directly. */
function supported(version) {
  const [major, minor] = String(version).split('.').map(Number);
  return (major === 22 && minor >= 18) || major >= 24;
}

/** The development dependencies missing from `root`'s node_modules (none on a full install). */
function missingDevDependencies(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.keys(pkg.devDependencies ?? {}).filter(
    (name) => !existsSync(join(root, 'node_modules', name, 'package.json')),
  );
}

/** The message refusing this process, or null when it may run. */
function refusal(version, root, script) {
  if (!supported(version))
    return `This project needs ${SUPPORTED} (it runs its TypeScript sources directly); this is Node.js ${version}. Install Node 24 (or 22.18+) and run the command again.`;
  const rel = script === undefined ? '' : relative(root, resolve(script)).split(sep).join('/');
  if (/^(bench|test)\//.test(rel)) {
    const missing = missingDevDependencies(root);
    if (missing.length > 0)
      return `${rel} needs the development dependencies (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''} are not installed): this looks like a production install (npm ci --omit=dev). Run npm ci (without --omit=dev) to use the benchmarks, the soak and the fuzzer.`;
  }
  return null;
}

module.exports = { supported, missingDevDependencies, refusal, SUPPORTED };
