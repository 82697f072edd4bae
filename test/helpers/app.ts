/**
 * The app in-process, as Hono's `app.request` does it: a test calls the whole service (routing, limits, headers,
 * compression, the log line) with a request value and gets its answer, with no socket. The same composition as the
 * local server (shim/local-app.ts); only the Node adapter's own rules (Host, body limit, proxies, parser errors)
 * need a socket, and their suites keep startTestServer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { loadConfig } from '../../shim/edge/env.ts';
import type { App } from '../../shim/edge/edge-types.ts';
import { splitTarget } from '../../shim/http/target.ts';
import { createLocalApp, type ServerOverrides } from '../../shim/local-app.ts';
import type { TestServer } from './server.ts';

/** The base every in-process app is reached at (its links and problem types are under it too). */
export const IN_PROCESS_BASE = 'http://in-process.test';

/** A test server without a socket: `fetch` calls the app itself. */
export interface TestApp extends TestServer {
  /** `fetch` of a path (or a URL under `url`) answered by the app in-process, decoded like fetch decodes. */
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

/** The apps started by startTestApp, by their base URL, for test/helpers/http.ts's request(). */
const apps = new Map<string, TestApp>();
let started = 0;

/** The in-process app at `baseUrl`, if one was started there. */
export function inProcessApp(baseUrl: string): TestApp | undefined {
  return apps.get(baseUrl);
}

/** A fetch Response of the app's answer to `input`, its body decoded as fetch would (Content-Encoding kept). */
async function call(app: App, base: string, input: string, init: RequestInit): Promise<Response> {
  const target = splitTarget(input.startsWith(base) ? input.slice(base.length) || '/' : input);
  if (target === null) throw new TypeError(`not a path under ${base}: ${input}`);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const body =
    init.body === undefined || init.body === null ? null : Buffer.from(await new Response(init.body).arrayBuffer());
  const answer = await app({
    method: (init.method ?? 'GET').toUpperCase(),
    ...target,
    headers,
    body,
    clientAddress: '127.0.0.1',
  });
  const coding = answer.headers['content-encoding'];
  const bytes =
    answer.body === null || answer.body.byteLength === 0
      ? null
      : coding === 'br'
        ? brotliDecompressSync(answer.body)
        : coding === 'gzip'
          ? gunzipSync(answer.body)
          : answer.body;
  return new Response(bytes, { status: answer.status, headers: answer.headers });
}

/**
 * Build the app with the sample site (TEST_SITE_DIR) as startTestServer would serve it, reached at a base of its own.
 * `env` and `overrides` as for startTestServer.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  overrides: ServerOverrides = {},
): Promise<TestApp> {
  const siteDir = env.SITE_DIR ?? process.env.TEST_SITE_DIR;
  if (siteDir === undefined)
    throw new Error('TEST_SITE_DIR is not set: run the tests through vitest (test/global-setup.ts builds the site).');
  const ownLogDir = env.LOG_DIR === undefined ? mkdtempSync(join(tmpdir(), 'iad-test-log-')) : null;
  const config = loadConfig({
    RATE_LIMIT_PER_HOUR: '100000',
    ...env,
    SITE_DIR: siteDir,
    LOG_DIR: env.LOG_DIR ?? (ownLogDir as string),
  });
  const url = config.publicBaseUrl ?? `${IN_PROCESS_BASE}:${10_000 + started++}`;
  const { app, log } = createLocalApp(config, url, overrides);
  const testApp: TestApp = {
    url,
    logDir: config.logDir,
    flushLog: () => log.flush(),
    fetch: (input, init = {}) => call(app, url, input, init),
    async close() {
      apps.delete(url);
      await log.close();
      if (ownLogDir !== null) rmSync(ownLogDir, { recursive: true, force: true });
    },
  };
  apps.set(url, testApp);
  return testApp;
}
