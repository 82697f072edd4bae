/**
 * The viewer-request CloudFront Function (infra/edge/viewer-request.js) run under the cloudfront-js-2.0 runtime's rules
 * (bench/lib/cloudfront-runtime.ts): equivalent /v1/attorneys queries get one cache key, and every normalised query
 * gets exactly the answer its raw form gets from the real local server; its log line holds no raw address, and its
 * address hash is the one the function's own log lines use.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KVS_ID_PLACEHOLDER,
  MAX_FUNCTION_BYTES,
  VIEWER_REQUEST_SOURCE,
  viewerRequestCode,
} from '../infra/edge-function.ts';
import { hashAddress } from '../shim/http/request-log.ts';
import {
  forwardedQuery,
  loadCloudFrontFunction,
  viewerRequest,
  type LoadedFunction,
} from '../bench/lib/cloudfront-runtime.ts';
import { rng } from './helpers/rng.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const KVS_ID = 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
const SALT = 'ab'.repeat(32);
const today = (): string => new Date().toISOString().slice(0, 10);

function load(kvs = new Map([[`salt-${today()}`, SALT]])): LoadedFunction {
  return loadCloudFrontFunction(viewerRequestCode(KVS_ID), KVS_ID, kvs);
}

/** The query the function forwards for raw query `query` on `path`. */
async function normalise(query: string, path = '/v1/attorneys'): Promise<string> {
  return forwardedQuery(await load().handler(viewerRequest(path, query)));
}

describe('runtime rules', () => {
  it("fits CloudFront's 10 KB limit with a store id filled in, and uses only the runtime's modules", () => {
    const source = readFileSync(VIEWER_REQUEST_SOURCE, 'utf8');
    expect(source.split(KVS_ID_PLACEHOLDER)).toHaveLength(2);
    expect(Buffer.byteLength(viewerRequestCode(KVS_ID))).toBeLessThanOrEqual(MAX_FUNCTION_BYTES);
    // Nothing the runtime lacks (timers, network, process) and nothing that evaluates code.
    expect(source).not.toMatch(
      /\b(setTimeout|setInterval|fetch|process|globalThis|eval|XMLHttpRequest)\b|new Function/,
    );
    expect(() => load()).not.toThrow();
  });

  it('copies the viewer Host for links and overwrites any x-viewer-host the viewer sent', async () => {
    const event = viewerRequest('/v1/coverage', '', { host: 'directory.example.org' });
    event.request.headers['x-viewer-host'] = { value: 'evil.example' };
    const out = await load().handler(event);
    expect(out.headers['x-viewer-host']).toEqual({ value: 'directory.example.org' });
  });
});

describe('normalisation of /v1/attorneys', () => {
  it('sorts parameters and percent-encodes one way', async () => {
    expect(await normalise('zip=60601&limit=5')).toBe('limit=5&zip=60601');
    expect(await normalise('limit=5&zip=60601')).toBe('limit=5&zip=60601');
    expect(await normalise('location=New+York%2C+NY')).toBe('location=New%20York%2C%20NY');
    expect(await normalise('location=New%20York,%20NY')).toBe('location=New%20York%2C%20NY');
  });

  it('leaves out defaults and valid src, and writes numbers one way', async () => {
    expect(await normalise('zip=60601&radius_miles=15.0&limit=10&practice_area=personal_injury&src=my-app')).toBe(
      'zip=60601',
    );
    expect(await normalise('zip=60601&radius_miles=07.50&limit=%2B5')).toBe('limit=5&radius_miles=7.5&zip=60601');
  });

  it('sends lat with lng as the location that names the same point', async () => {
    expect(await normalise('lng=-87.6222&lat=41.8853')).toBe('location=41.8853%2C-87.6222');
  });

  it('keeps what it must not judge: unknown or repeated names, bad escapes, invalid values', async () => {
    expect(await normalise('zip=60601&radius=5')).toBe('zip=60601&radius=5');
    expect(await normalise('zip=60601&zip=60602')).toBe('zip=60601&zip=60602');
    expect(await normalise('location=%E0%A4%A&limit=5')).toBe('location=%E0%A4%A&limit=5');
    expect(await normalise('zip=60601&limit=26&radius_miles=abc')).toBe('limit=26&radius_miles=abc&zip=60601');
    // '+' is a space, so ' 5' is no number: kept as sent (re-encoded), and the function answers its 400.
    expect(await normalise('zip=60601&limit=+5')).toBe('limit=%205&zip=60601');
    expect(await normalise('lat=91&lng=0')).toBe('lat=91&lng=0');
    expect(await normalise('zip=60601&src=%C3%A9t%C3%A9')).toBe('src=%C3%A9t%C3%A9&zip=60601');
  });

  it('touches no other path', async () => {
    expect(await normalise('b=2&a=1', '/v1/coverage')).toBe('b=2&a=1');
  });
});

describe('answers do not change (real local server)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  async function answer(query: string): Promise<string> {
    const res = await fetch(`${server.url}/v1/attorneys?${query}`);
    return `${res.status} ${await res.text()}`;
  }

  /** Random queries from pieces that are equivalent, invalid, unknown or repeated, in random order and encoding. */
  function queries(count: number): string[] {
    const random = rng(20261122);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const locations = [
      'zip=60601',
      'zip=77002',
      'zip=00000',
      'zip=6060',
      'location=60601',
      'location=Houston,+TX',
      'location=Houston%2C%20TX',
      'location=houston,%20tx',
      'location=41.8853,-87.6222',
      'lat=41.8853&lng=-87.6222',
      'lat=29.76&lng=-95.37',
      'lat=91&lng=0',
      'lat=41.88',
      'location=Nowhere,+ZZ',
      'location=%20',
      '',
    ];
    const extras = [
      'radius_miles=15',
      'radius_miles=15.0',
      'radius_miles=7.5',
      'radius_miles=+7.50',
      'radius_miles=0',
      'radius_miles=abc',
      'radius_miles=',
      'limit=10',
      'limit=3',
      'limit=03',
      'limit=3.0',
      'limit=2.5',
      'limit=26',
      'practice_area=personal_injury',
      'practice_area=divorce',
      'src=my-app',
      'src=%C3%A9t%C3%A9',
      `src=${'a'.repeat(101)}`,
      'radius=5',
      'Zip=60601',
      'limit=3&limit=4',
      'zip=60601',
    ];
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const parts = [pick(locations), ...Array.from({ length: Math.floor(random() * 4) }, () => pick(extras))].filter(
        (p) => p !== '',
      );
      for (let j = parts.length - 1; j > 0; j--) {
        const k = Math.floor(random() * (j + 1));
        [parts[j], parts[k]] = [parts[k] as string, parts[j] as string];
      }
      out.push(parts.join('&'));
    }
    return out;
  }

  it('every normalised query gets byte for byte the answer of its raw form, errors included', async () => {
    const fn = load();
    let rewritten = 0;
    for (const raw of queries(250)) {
      const forwarded = forwardedQuery(await fn.handler(viewerRequest('/v1/attorneys', raw)));
      if (forwarded !== raw) rewritten++;
      expect(await answer(forwarded), `${raw} -> ${forwarded}`).toBe(await answer(raw));
    }
    expect(rewritten).toBeGreaterThan(100);
  });

  it('equivalent queries share one cache key', async () => {
    const groups = [
      [
        'zip=60601',
        'zip=60601&limit=10',
        'radius_miles=15.0&zip=60601&src=a',
        'practice_area=personal_injury&zip=60601',
      ],
      [
        'location=Houston,+TX&limit=3',
        'limit=03&location=Houston%2C%20TX',
        'location=Houston,%20TX&limit=3.0&radius_miles=15',
      ],
      ['lat=41.8853&lng=-87.6222', 'location=41.8853,-87.6222', 'lng=-87.6222&lat=41.8853&src=x'],
    ];
    for (const group of groups) {
      const keys = new Set(await Promise.all(group.map((q) => normalise(q))));
      expect(keys.size, group.join(' | ')).toBe(1);
      const bodies = new Set(await Promise.all(group.map((q) => answer(q))));
      expect(bodies.size, group.join(' | ')).toBe(1);
    }
  });
});

describe('the edge request log', () => {
  type Line = Record<string, unknown>;
  async function logged(
    path: string,
    query: string,
    viewer: { ip?: string; userAgent?: string } = {},
    kvs?: Map<string, string>,
  ): Promise<{ line: Line; raw: string }> {
    const fn = load(kvs);
    await fn.handler(viewerRequest(path, query, viewer));
    expect(fn.logs).toHaveLength(1);
    return { line: JSON.parse(fn.logs[0] as string) as Line, raw: fn.logs[0] as string };
  }

  it('one line per request: location as sent, time, user agent, src, the cache key, and the hashed address only', async () => {
    const before = Date.now();
    const { line, raw } = await logged('/v1/attorneys', 'location=Houston,+TX&src=my-app&limit=3', {
      ip: '198.51.100.23',
      userAgent: 'curl/8.5',
    });
    expect(Object.keys(line)).toEqual([
      'log',
      'time',
      'endpoint',
      'location',
      'user_agent',
      'address_hash',
      'src',
      'cache_key',
    ]);
    expect(line).toMatchObject({
      log: 'edge_request',
      endpoint: '/v1/attorneys',
      location: 'Houston, TX',
      user_agent: 'curl/8.5',
      src: 'my-app',
      cache_key: 'limit=3&location=Houston%2C%20TX',
    });
    expect(Date.parse(line.time as string)).toBeGreaterThanOrEqual(before - 1000);
    // The same HMAC the function's request log uses, under the same day's salt: edge and origin lines agree.
    expect(line.address_hash).toBe(hashAddress(Buffer.from(SALT, 'hex'), '198.51.100.23'));
    expect(raw).not.toContain('198.51.100.23');
  });

  it('an IPv4-mapped address hashes as the plain IPv4 address, like the function does', async () => {
    const { line } = await logged('/v1/attorneys', 'zip=60601', { ip: '::ffff:198.51.100.23' });
    expect(line.address_hash).toBe(hashAddress(Buffer.from(SALT, 'hex'), '198.51.100.23'));
  });

  it('the location of lat+lng and of an unnormalised query is logged as sent', async () => {
    expect((await logged('/v1/attorneys', 'lat=41.88&lng=-87.63')).line.location).toBe('41.88,-87.63');
    expect((await logged('/v1/attorneys', 'zip=60601&radius=3')).line).toMatchObject({
      location: '60601',
      cache_key: 'zip=60601&radius=3',
    });
  });

  it("without the day's salt in the store, the line has no hash (never the address)", async () => {
    const { line, raw } = await logged(
      '/v1/attorneys',
      'zip=60601',
      { ip: '198.51.100.23' },
      new Map([['salt-2000-01-01', SALT]]),
    );
    expect(line.address_hash).toBeNull();
    expect(raw).not.toContain('198.51.100');
  });

  it('document paths are logged too (their hits never reach the function), without query fields', async () => {
    const { line } = await logged('/v1/firms/l_aaaaaaaaaaaaaaaa', '', { userAgent: 'ua' });
    expect(line).toMatchObject({
      endpoint: '/v1/firms/l_aaaaaaaaaaaaaaaa',
      location: null,
      src: null,
      cache_key: null,
      user_agent: 'ua',
    });
  });
});
