/** The line `npm start` prints once it serves: where, the request log, and the rate limit as a person reads it. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The first stdout line of `start.ts --no-build` with RATE_LIMIT_PER_HOUR=`perHour`; the server is stopped after. */
async function banner(perHour: string): Promise<string> {
  const logDir = mkdtempSync(join(tmpdir(), 'iad-banner-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts', '--no-build'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SITE_DIR: process.env.TEST_SITE_DIR as string,
      LOG_DIR: logDir,
      RATE_LIMIT_PER_HOUR: perHour,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await expect.poll(() => out.includes('\n'), { timeout: 30_000 }).toBe(true);
    return out.split('\n')[0] as string;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(logDir, { recursive: true, force: true });
  }
}

describe('npm start banner', () => {
  it.concurrent(
    'says "rate limit: off" when RATE_LIMIT_PER_HOUR is 0, not "off/hour"',
    async () => {
      const line = await banner('0');
      expect(line).toMatch(/^Serving .* on http:\/\/127\.0\.0\.1:\d+ {2}\(request log: .*, rate limit: off\)$/);
    },
    40_000,
  );

  it.concurrent(
    'says "rate limit: 600/hour" for a limit',
    async () => {
      expect(await banner('600')).toMatch(/, rate limit: 600\/hour\)$/);
    },
    40_000,
  );
});
