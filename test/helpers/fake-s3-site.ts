/**
 * The sample site served by a loopback fake S3 (fake-s3.ts) for a suite, and the real local server over it: the
 * set-up the slow-store suites share. Hooks are registered by useFakeS3Site; read its fields in hooks and tests only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeS3, type FakeS3 } from './fake-s3.ts';
import { S3RVER_ENV } from '../../bench/lib/s3rver.ts';
import { startTestServer, type TestServer } from './server.ts';
import { FirmPack } from '../../shim/format/site-format.ts';

/** One answer as a client saw it, with when it was asked and when it ended (performance.now(), ms). */
export interface Got {
  path: string;
  status: number;
  retryAfter: string | null;
  started: number;
  ended: number;
}

/** The fake S3 over the sample site, the served version, 60 of its listing ids (each in a firm pack of its own), and the server over them. */
export interface FakeS3Site {
  readonly fake: FakeS3;
  readonly version: string;
  readonly firmIds: readonly string[];
  /** Start the real local server over the fake S3 with STORE_TIMEOUT_MS = the suite's deadline and no answer cache. */
  startServer(): Promise<void>;
  /** GET `path` from the running server. */
  get(path: string): Promise<Got>;
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Wait until `check` holds, up to `ms`; true when it did. */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check() && performance.now() < end) await sleep(50);
  return check();
}

/** Register the suite's hooks: the fake S3 up for the suite (S3 credentials in the environment), a server per test. */
export function useFakeS3Site(deadlineMs: number): FakeS3Site {
  const site = (): string => process.env.TEST_SITE_DIR as string;
  let fake: FakeS3 | undefined;
  let version = '';
  let firmIds: string[] = [];
  let server: TestServer | null = null;
  const savedEnv: Record<string, string | undefined> = {};
  const running = (): FakeS3 => {
    if (fake === undefined) throw new Error('the fake S3 is not running: read useFakeS3Site() in hooks and tests only');
    return fake;
  };

  beforeAll(async () => {
    for (const [name, value] of Object.entries(S3RVER_ENV)) {
      savedEnv[name] = process.env[name];
      process.env[name] = value;
    }
    version = (JSON.parse(readFileSync(join(site(), 'current.json'), 'utf8')) as { version: string }).version;
    // One listing of each of 60 firm packs: 60 firm reads of 60 different objects.
    const packs = join(site(), 'v', version, 'firms');
    firmIds = readdirSync(packs)
      .sort()
      .map((name) => FirmPack.parse(JSON.parse(readFileSync(join(packs, name), 'utf8'))).documents[0]?.listing_id)
      .filter((id) => id !== undefined)
      .slice(0, 60);
    fake = await startFakeS3(site());
  });

  afterEach(async () => {
    running().fault = () => null;
    await server?.close();
    server = null;
  });

  afterAll(async () => {
    await fake?.stop();
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  return {
    get fake() {
      return running();
    },
    get version() {
      return version;
    },
    get firmIds() {
      return firmIds;
    },
    async startServer() {
      // 60 firm readers and the searcher come from one address: above the default cap per address.
      server = await startTestServer(
        {
          SITE_BUCKET: 'site',
          SITE_S3_ENDPOINT: running().endpoint,
          STORE_TIMEOUT_MS: String(deadlineMs),
          // Every search runs the real reads (no finished answers kept).
          ANSWER_CACHE_MIB: '0',
        },
        { connections: { perAddress: 1000 } },
      );
    },
    async get(path) {
      if (server === null) throw new Error('no server: call startServer() first');
      const started = performance.now();
      const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(20_000) });
      await res.arrayBuffer();
      return {
        path,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        started,
        ended: performance.now(),
      };
    },
  };
}
