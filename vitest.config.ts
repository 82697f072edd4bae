import { defineConfig } from 'vitest/config';

/**
 * Two projects, chosen by file name, so a new test file lands in one without a list to update:
 * - `fast` (`npm test`): every `test/**\/*.test.ts` but the slow ones;
 * - `slow` (`npm run test:slow`): `test/**\/*.slow.test.ts`, the suites that are slow by nature (a real browser, whole
 *   sites uploaded to a loopback S3, the long fuzz, the benchmark smoke runs and the cell-tree sweep, the site-folder
 *   churn). `.ci/run` runs both.
 * Expensive fixtures are shared, not rebuilt per suite: test/global-setup.ts generates the sample site and the generator
 * fixture's site (reused across runs while their inputs are unchanged); suites link or copy them
 * (test/helpers/site-copy.ts, test/helpers/fixture-site.ts). A suite lands in
 * `slow` for what it does, never to hide a timeout; the timeouts below are not raised to make a test pass.
 */
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Two workers on a 2-core machine: most suites wait on child processes (servers, CLIs) or the file system, so a
    // second worker fills that time; more than two only adds contention.
    maxWorkers: 2,
    // s3rver (the loopback S3 in tests) signs ListObjectsV2 continuation tokens with DES, which OpenSSL 3 refuses
    // unless its legacy provider is loaded: without it, listing more than 1,000 keys fails with InternalError.
    execArgv: ['--openssl-legacy-provider'],
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [SLOW] } },
      { extends: true, test: { name: 'slow', include: [SLOW] } },
    ],
  },
});
