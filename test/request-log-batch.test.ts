/**
 * Request-log lines are written in batches off the response path, and none is lost: not at a batch boundary, not
 * across a UTC day, and not when `npm start` is stopped with SIGTERM right after answering (a real child process).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../shim/edge/edge-types.ts';
import { FLUSH_ENTRIES, JsonLinesSink } from '../shim/http/jsonl-sink.ts';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'iad-logbatch-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const entry = (time: string, i: number): RequestLogEntry => ({
  time,
  query_id: null,
  endpoint: '/v1/attorneys',
  location: `loc ${i}`,
  user_agent: 'ua',
  address_hash: '0123456789abcdef',
  src: null,
  covered: true,
  result_count: i,
  metro: null,
  zip3: null,
  status: 200,
});

const lines = (file: string): RequestLogEntry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RequestLogEntry);

describe('JsonLinesSink batches', () => {
  it('holds lines until a batch fills or flush/close, then writes every one in order, each day to its own file', async () => {
    const dir = tempDir();
    const sink = new JsonLinesSink(dir);
    sink.write(entry('2026-11-22T23:59:59.000Z', 0));
    // Nothing is written on the response path: no file yet.
    expect(readdirSync(dir)).toEqual([]);
    const n = FLUSH_ENTRIES * 2 + 7;
    for (let i = 1; i < n; i++) sink.write(entry(i < 100 ? '2026-11-22T23:59:59.500Z' : '2026-11-23T00:00:00.100Z', i));
    await sink.close();
    const a = lines(sink.fileFor('2026-11-22'));
    const b = lines(sink.fileFor('2026-11-23'));
    expect(a.map((e) => e.result_count)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(b.map((e) => e.result_count)).toEqual(Array.from({ length: n - 100 }, (_, i) => i + 100));
  });

  it('has every line of the day before in its file once close or flush resolves after a day change', async () => {
    // A day's file is still being written when the next day's batch opens another: close() and flush() wait for both.
    // Many long lines make the earlier file's writes outlast the later one's single line.
    const long = 'x'.repeat(200);
    const n = FLUSH_ENTRIES * 40;
    for (const end of ['close', 'flush'] as const) {
      const sink = new JsonLinesSink(tempDir());
      for (let i = 0; i < n; i++) sink.write({ ...entry('2026-11-22T23:59:59.900Z', i), location: long });
      sink.write(entry('2026-11-23T00:00:00.000Z', n));
      await (end === 'close' ? sink.close() : sink.flush());
      expect(lines(sink.fileFor('2026-11-22')).length, end).toBe(n);
      expect(
        lines(sink.fileFor('2026-11-23')).map((e) => e.result_count),
        end,
      ).toEqual([n]);
      await sink.close();
    }
  });

  it('writes a lone line within its time limit without a flush', async () => {
    const dir = tempDir();
    const sink = new JsonLinesSink(dir);
    sink.write(entry('2026-11-22T10:00:00.000Z', 1));
    await expect
      .poll(() => readdirSync(dir).length > 0 && lines(sink.fileFor('2026-11-22')).length, { timeout: 5000 })
      .toBe(1);
    await sink.close();
  });
});

describe('npm start stopped with SIGTERM', () => {
  it('has written a line for every request it answered', async () => {
    const logDir = tempDir();
    const site = process.env.TEST_SITE_DIR as string;
    const child = spawn(process.execPath, ['start.ts', '--no-build'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SITE_DIR: site,
        LOG_DIR: logDir,
        RATE_LIMIT_PER_HOUR: '100000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    await expect.poll(() => /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], { timeout: 30_000 }).toBeDefined();
    const base = (/on (http:\/\/127\.0\.0\.1:\d+)/.exec(out) as RegExpExecArray)[1] as string;
    const paths = [
      '/v1/attorneys?zip=60601',
      '/v1/attorneys?location=Chicago,%20IL&limit=3',
      '/v1/coverage',
      '/v1/attorneys?radius=3',
    ];
    const sent = 40;
    for (let i = 0; i < sent; i++)
      await (
        await fetch(base + (paths[i % paths.length] as string), { headers: { 'user-agent': `batch-test/${i}` } })
      ).arrayBuffer();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const written = readdirSync(logDir).flatMap((f) => lines(join(logDir, f)));
    expect(written.map((e) => e.user_agent).sort()).toEqual(
      Array.from({ length: sent }, (_, i) => `batch-test/${i}`).sort(),
    );
    expect(JSON.stringify(written)).not.toContain('127.0.0.1');
  }, 60_000);
});
