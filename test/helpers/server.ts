/** Start the real local server on an ephemeral loopback port for a test file; shared by the REST and MCP suites. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shim/edge/env.ts';
import type { ServerOverrides } from '../../shim/local-app.ts';
import { startServer } from '../../shim/server.ts';

/** A server started by startTestServer. */
export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Folder of this server's request log (a fresh temp folder unless LOG_DIR was given). */
  logDir: string;
  /** Wait until every request log line written so far is in the file. */
  flushLog(): Promise<void>;
  /** Stop the server and remove its temp log folder. */
  close(): Promise<void>;
}

/**
 * Start the server with the sample site (TEST_SITE_DIR from the global setup) on 127.0.0.1 and a free port.
 * `env` overrides the environment the server reads (SITE_DIR, RATE_LIMIT_PER_HOUR, TRUST_PROXY, ...); the real process
 * environment is not read; `overrides` replaces parts of the server (timeouts, rate limiter). Defaults: RATE_LIMIT_PER_HOUR=100000 (headers present, never hit), LOG_DIR a temp folder.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: ServerOverrides = {},
): Promise<TestServer> {
  const siteDir = env.SITE_DIR ?? process.env.TEST_SITE_DIR;
  if (siteDir === undefined)
    throw new Error('TEST_SITE_DIR is not set: run the tests through vitest (test/global-setup.ts builds the site).');
  const ownLogDir = env.LOG_DIR === undefined ? mkdtempSync(join(tmpdir(), 'iad-test-log-')) : null;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_HOUR: '100000',
    ...env,
    SITE_DIR: siteDir,
    LOG_DIR: env.LOG_DIR ?? (ownLogDir as string),
  });
  const running = await startServer(config, overrides);
  return {
    url: running.url,
    logDir: config.logDir,
    flushLog: () => running.log.flush(),
    async close() {
      await running.close(1000);
      if (ownLogDir !== null) rmSync(ownLogDir, { recursive: true, force: true });
    },
  };
}
