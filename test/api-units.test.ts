/** The edge's pure parts with an injected clock: rate-limit windows and memory bound, address keys, daily salt, config. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../shim/edge/env.ts';
import { clientAddress, rateLimitKey } from '../shim/http/client-address.ts';
import { createRateLimiter, rateLimitHeaders } from '../shim/http/rate-limit.ts';
import { hashAddress } from '../shim/http/request-log.ts';
import { MemorySaltProvider } from '../shim/http/salt.ts';

describe('rate limiter', () => {
  it('allows `limit` requests per hour per key, then blocks until the window ends', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ limit: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take('a').remaining)).toEqual([2, 1, 0]);
    const blocked = limiter.take('a');
    expect(blocked).toEqual({ allowed: false, remaining: 0, resetSeconds: 3600 });
    expect(rateLimitHeaders(limiter, blocked)).toEqual({
      'ratelimit-policy': '"hour";q=3;w=3600',
      ratelimit: '"hour";r=0;t=3600',
      'retry-after': '3600',
    });
    expect(limiter.take('b').allowed).toBe(true);
    now += 3599_000;
    expect(limiter.take('a')).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    now += 1000;
    expect(limiter.take('a')).toEqual({ allowed: true, remaining: 2, resetSeconds: 3600 });
    expect(limiter.peek('a').remaining).toBe(2);
  });

  it('keeps memory bounded: expired windows are evicted and at most maxKeys are held', () => {
    let now = 0;
    const limiter = createRateLimiter({ limit: 10, maxKeys: 1000, now: () => now });
    for (let i = 0; i < 5000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.trackedKeys()).toBeLessThanOrEqual(1000);
    now += 3600_000;
    limiter.take('192.0.2.1');
    expect(limiter.trackedKeys()).toBe(1);
  });

  it('is off at 0, with no headers', () => {
    const limiter = createRateLimiter({ limit: 0 });
    for (let i = 0; i < 100; i++) expect(limiter.take('a').allowed).toBe(true);
    expect(rateLimitHeaders(limiter, limiter.take('a'))).toEqual({});
  });
});

describe('client address', () => {
  it('uses X-Forwarded-For only behind trusted proxies, counting hops from the right', () => {
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.5, 10.0.0.1', 0)).toBe('127.0.0.1');
    // One proxy appended the address it saw: the right-most entry. Entries to its left are the client's own words.
    expect(clientAddress('127.0.0.1', '10.0.0.7, 198.51.100.7', 1)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '10.0.0.7, 198.51.100.7, 10.1.1.1', 2)).toBe('198.51.100.7');
    expect(clientAddress('127.0.0.1', '[2001:db8::1]:443', 1)).toBe('2001:db8::1');
    expect(clientAddress('127.0.0.1', 'not-an-ip', 1)).toBe('127.0.0.1');
    // Fewer entries than trusted hops: the header did not come through the configured chain.
    expect(clientAddress('127.0.0.1', '198.51.100.7', 2)).toBe('127.0.0.1');
  });

  it('limits IPv6 by /64 and IPv4 by address', () => {
    expect(rateLimitKey('2001:db8:1:2:aaaa::1')).toBe(rateLimitKey('2001:db8:1:2:ffff:1:2:3'));
    expect(rateLimitKey('2001:db8:1:2::1')).not.toBe(rateLimitKey('2001:db8:1:3::1'));
    expect(rateLimitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKey('203.0.113.5')).toBe('203.0.113.5');
  });
});

describe('daily salt', () => {
  it('is random per UTC day and forgets the previous day', async () => {
    const salts = new MemorySaltProvider();
    const day1 = await salts.saltFor('2026-11-21');
    const hash1 = hashAddress(day1, '198.51.100.7');
    expect(day1.byteLength).toBe(32);
    expect(await salts.saltFor('2026-11-21')).toBe(day1);
    const day2 = await salts.saltFor('2026-11-22');
    expect(hashAddress(day2, '198.51.100.7')).not.toBe(hash1);
    // The old day's salt is wiped and cannot be obtained again.
    expect(day1.every((b) => b === 0)).toBe(true);
    expect(hashAddress(await salts.saltFor('2026-11-21'), '198.51.100.7')).not.toBe(hash1);
    expect(hash1).toMatch(/^[0-9a-f]{16}$/);
    expect(await new MemorySaltProvider().saltFor('2026-11-22')).not.toEqual(day2);
  });
});

describe('config', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8787,
      host: '127.0.0.1',
      publicBaseUrl: null,
      siteDir: 'site',
      siteBucket: null,
      dataDir: 'data',
      logDir: 'var/log',
      rateLimitPerHour: 600,
      rateLimitWindowSeconds: 3600,
      correctionsEmail: null,
      proxyHops: 0,
      allowedOrigins: [],
      cacheBytes: 192 * 1024 * 1024,
      answerCacheBytes: 32 * 1024 * 1024,
      storeTimeoutMs: 5000,
    });
    const c = loadConfig({
      PORT: '9000',
      PUBLIC_BASE_URL: 'https://api.example/',
      TRUST_PROXY: 'true',
      ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000',
      RATE_LIMIT_PER_HOUR: '0',
      CACHE_MIB: '512',
    });
    expect(c).toMatchObject({
      cacheBytes: 512 * 1024 * 1024,
      port: 9000,
      publicBaseUrl: 'https://api.example',
      proxyHops: 1,
      rateLimitPerHour: 0,
      allowedOrigins: ['https://a.example', 'http://localhost:3000'],
    });
  });

  it('names every bad variable', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).proxyHops).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'no' }).proxyHops).toBe(0);
    const bad = {
      PORT: '99999',
      RATE_LIMIT_PER_HOUR: 'lots',
      TRUST_PROXY: 'maybe',
      PUBLIC_BASE_URL: 'ftp://x',
      ALLOWED_ORIGINS: 'https://a.example/path',
      CACHE_MIB: '0',
    };
    expect(() => loadConfig(bad)).toThrow(ConfigError);
    try {
      loadConfig(bad);
    } catch (err) {
      for (const name of Object.keys(bad)) expect((err as Error).message).toContain(name);
    }
  });

  it('npm start exits 1 with a clear message on bad environment, and has --help', () => {
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, ['start.ts', ...args], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const bad = run([], { PORT: 'eighty' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('PORT="eighty"');
    const help = run(['--help'], {});
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('RATE_LIMIT_PER_HOUR');
  });
});
