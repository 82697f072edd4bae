/**
 * Store reads that do not finish: FIFOs in place of firm packs (a read that would wait for a writer, standing in for
 * a hung mount) answer 503 with Retry-After at once and hold up no other request; the restored files are served again
 * by the same server; SIGTERM stops the server while such reads are pending. A read that stalls past the deadline
 * (STORE_TIMEOUT_MS) is a StoreError, and the next read of the object is tried afresh.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  copyFileSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { DEFAULT_STORE_TIMEOUT_MS, withDeadline } from '../shim/store/deadline.ts';
import { runWithDeadline } from '../shim/store/request-deadline.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { StoreError, type Store } from '../shim/store/types.ts';
import { keys, ListingBucket } from '../shim/format/site-format.ts';
import { firmPackKey } from './helpers/firm-pack.ts';
import { startTestServer } from './helpers/server.ts';

const SITE = (): string => process.env.TEST_SITE_DIR as string;

let copyDir: string;
let version: string;
/** Five listings whose firm documents the cases replace by FIFOs, and one that stays a file. */
let stalled: string[];
let intact: string;

/** The firm pack holding listing `id` in the copy (`from`: in another site folder of the same version). */
const firmPath = (id: string, from = copyDir): string => join(from, firmPackKey(SITE(), version, id));

/** Put a FIFO where the firm pack holding the document of `id` was. */
function fifoFor(id: string): void {
  unlinkSync(firmPath(id));
  expect(spawnSync('mkfifo', [firmPath(id)]).status).toBe(0);
}

/** Unblock any reader still waiting in open() on the FIFO (a writer that opens and closes), then put the file back. */
function restore(id: string): void {
  try {
    closeSync(openSync(firmPath(id), constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody is waiting on it; ENOENT: already restored.
  }
  rmSync(firmPath(id), { force: true });
  copyFileSync(firmPath(id, SITE()), firmPath(id));
}

async function get(url: string): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const t = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(8000), redirect: 'manual' });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t };
}

beforeAll(() => {
  version = (JSON.parse(readFileSync(join(SITE(), 'current.json'), 'utf8')) as { version: string }).version;
  copyDir = mkdtempSync(join(tmpdir(), 'iad-deadlines-'));
  // Hard links: a copy in a moment; every case replaces files (unlink, then create), never writes through a link.
  expect(spawnSync('cp', ['-al', `${SITE()}/.`, copyDir]).status).toBe(0);
  // The first listing of each of five firm packs, and the last listing of the version (in another pack).
  const ids = readdirSync(join(copyDir, 'v', version, 'listings'))
    .flatMap(
      (f) =>
        ListingBucket.parse(JSON.parse(readFileSync(join(copyDir, 'v', version, 'listings', f), 'utf8'))).listing_ids,
    )
    .sort();
  const firstOfPack = new Map<string, string>();
  for (const id of ids) if (!firstOfPack.has(firmPath(id))) firstOfPack.set(firmPath(id), id);
  stalled = [...firstOfPack.values()].slice(0, 5);
  intact = ids[ids.length - 1] as string;
  expect(stalled.map((id) => firmPath(id))).not.toContain(firmPath(intact));
});
afterAll(() => {
  for (const id of stalled ?? []) restore(id);
  if (copyDir !== undefined) rmSync(copyDir, { recursive: true, force: true });
});

describe('FIFOs in place of firm packs', () => {
  it('answer 503 with Retry-After at once, hold up no other request, and the restored files are served again', async () => {
    // The FIFOs need no deadline (the folder store refuses what is not a regular file when it opens it), so the server
    // has its default one: the other requests' first reads of their objects take the time a loaded machine needs.
    const server = await startTestServer({ SITE_DIR: copyDir });
    try {
      expect((await get(`${server.url}/v1/firms/${intact}`)).status).toBe(200);
      for (const id of stalled) fifoFor(id);
      const firms = stalled.map((id) => get(`${server.url}/v1/firms/${id}`));
      const others = [
        '/v1/attorneys?zip=60601',
        '/v1/coverage',
        `/v1/firms/${intact}`,
        '/no-such-path',
        '/v1/firms/l_aaaaaaaaaaaaaaaa',
      ].map((p) => get(server.url + p));
      for (const r of await Promise.all(firms)) {
        expect(r.status).toBe(503);
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
      }
      const answered = await Promise.all(others);
      expect(answered.map((r) => r.status)).toEqual([200, 200, 200, 404, 404]);
      // The FIFOs are restored only below: a request waiting on them would end at its deadline, a 503 at the earliest.
      for (const r of answered)
        expect(r.ms, 'no request waits for the stalled reads').toBeLessThan(DEFAULT_STORE_TIMEOUT_MS);
      for (const id of stalled) restore(id);
      for (const id of stalled) expect((await get(`${server.url}/v1/firms/${id}`)).status, `${id} restored`).toBe(200);
    } finally {
      for (const id of stalled) restore(id);
      await server.close();
    }
  });

  it('SIGTERM stops the server while reads of them are pending', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'iad-deadlines-log-'));
    // Node runs start.ts itself (type stripping): the tsx loader's transform only slowed the start on a loaded machine.
    const child = spawn(process.execPath, [resolve('start.ts'), '--no-build'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SITE_DIR: copyDir,
        LOG_DIR: logDir,
        RATE_LIMIT_PER_HOUR: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((done, fail) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = / on (http:\/\/[^\s]+)/.exec(out);
          if (m?.[1] !== undefined) done(m[1]);
        });
        child.once('exit', () => fail(new Error(`server exited before listening: ${out}`)));
      });
      for (const id of stalled) fifoFor(id);
      const pending = stalled.map((id) => get(`${url}/v1/firms/${id}`).catch(() => null));
      await new Promise((r) => setTimeout(r, 500));
      const t = performance.now();
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))]);
      expect(code, 'still running 15 s after SIGTERM').not.toBe('running');
      expect(performance.now() - t).toBeLessThan(15_000);
      await Promise.all(pending);
    } finally {
      for (const id of stalled) restore(id);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(logDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('a read that does not finish in time', () => {
  // The deadline's clock is faked (setTimeout and performance.now), the file reads are real: a read finishes when the
  // disk answers and a deadline passes when the test moves the clock, so a loaded machine can neither make a read of a
  // file miss the deadline nor let a hung one end early.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is a StoreError after the deadline, holds up no other read, and the object is read afresh once it answers', async () => {
    // A store whose reads of one key never finish until released: the hung mount a test cannot make without root.
    const folder = new FolderStore(SITE());
    const key = keys.coverage(version);
    let hung = true;
    const stalling: Store = {
      kind: 'hung',
      get: (k) => (k === key && hung ? new Promise<Uint8Array | null>(() => {}) : folder.get(k)),
    };
    const reader = await createSiteSource(withDeadline(stalling, 300)).current();
    let late: unknown = 'pending';
    void reader.json(key, z.unknown()).then(
      () => (late = 'answered'),
      (err: unknown) => (late = err),
    );
    // Another read is answered while the hung one waits, with no time passing.
    expect(await reader.json(keys.coverageCells(version), z.unknown())).not.toBeNull();
    await vi.advanceTimersByTimeAsync(299);
    expect(late).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(late).toBeInstanceOf(StoreError);
    expect(String(late)).toMatch(/within 300 ms/);
    hung = false;
    expect(await reader.json(key, z.object({ schema_version: z.literal(1) }))).toMatchObject({ schema_version: 1 });
  });

  it('shared by two requests, ends the first at its deadline and lets the second read again under its own', async () => {
    // Reads of one key wait until released (or until their deadline aborts them).
    const folder = new FolderStore(SITE());
    const key = keys.coverage(version);
    const waiting: (() => void)[] = [];
    let reads = 0;
    const slow: Store = {
      kind: 'slow',
      get: (k, options) => {
        if (k !== key) return folder.get(k);
        reads++;
        return new Promise<Uint8Array | null>((resolve, reject) => {
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          waiting.push(() => void folder.get(k).then(resolve, reject));
        });
      },
    };
    const reader = await createSiteSource(withDeadline(slow, 5000)).current();
    const first = runWithDeadline(200, () => reader.json(key, z.unknown())).then(
      () => 'answered',
      (err: unknown) => err,
    );
    await vi.advanceTimersByTimeAsync(50);
    expect(reads).toBe(1);
    // The second request joins the first one's read, 50 ms into it.
    const second = runWithDeadline(5000, () => reader.json(key, z.unknown()));
    await vi.advanceTimersByTimeAsync(150);
    const firstOutcome = await first;
    expect(firstOutcome).toBeInstanceOf(StoreError);
    expect(String(firstOutcome)).toMatch(/within 200 ms/);
    // The store answers now, after the first request's deadline and well inside the second's.
    await vi.advanceTimersByTimeAsync(100);
    for (const release of waiting.splice(0)) release();
    expect(await second).toMatchObject({ schema_version: 1 });
    expect(reads).toBe(2);
  });
});
