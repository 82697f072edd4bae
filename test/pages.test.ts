/**
 * The pages for people over real HTTP and as published: content negotiation on /, security headers, caching, 404s,
 * the metro figures recomputed by brute force from the raw samples, determinism, and the page weight of /.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePageWeights } from '../bench/size/pages.ts';
import { groupFirms } from '../generator/model/firms.ts';
import { SampleRecord } from '../generator/inputs/schema.ts';
import type { FlagRecordT, PlaceRecordT, SampleRecordT } from '../generator/inputs/schema.ts';
import { drawnLorenz, gini, LORENZ_DRAWN_POINTS, lorenz, lorenzSvg } from '../generator/pages/charts.ts';
import { buildPages } from '../generator/pages/write-pages.ts';
import { pageNameOf } from '../shim/format/page-format.ts';
import { request } from './helpers/http.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let server: TestApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string, accept?: string, init: RequestInit = {}) =>
  request(server.url, path, {
    ...init,
    headers: { ...(accept === undefined ? {} : { accept }), ...(init.headers ?? {}) },
  });

describe('/ by Accept', () => {
  it('answers a browser with the HTML search page and a JSON caller with the JSON index, saying it varies by Accept', async () => {
    const html = await get('/', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('<form id="search"');
    expect(html.headers.get('vary')).toMatch(/^Accept(, |$)/);
    for (const accept of ['application/json', '*/*', undefined, 'text/html;q=0, application/json']) {
      const json = await get('/', accept);
      expect(json.status, String(accept)).toBe(200);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect((json.body as { endpoints: Record<string, string> }).endpoints.find_attorneys).toContain('/v1/attorneys');
      expect(json.headers.get('vary')).toMatch(/^Accept(, |$)/);
    }
  });
});

describe('page responses', () => {
  const pages = ['/docs', '/corrections', '/metros/chicago'];

  it('carry a strict CSP (no inline script, no other host), frame and referrer protection, and cache as documents', async () => {
    for (const path of ['/', ...pages]) {
      const r = await get(path, 'text/html');
      expect(r.status, path).toBe(200);
      const csp = r.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(csp).not.toMatch(/https?:/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      expect(r.headers.get('set-cookie')).toBeNull();
      // Nothing from another host is referenced by the markup.
      expect(r.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
      expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('answer 304 to a matching If-None-Match and HEAD without a body', async () => {
    const first = await get('/corrections');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^(W\/)?"/);
    expect((await get('/corrections', undefined, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await get('/corrections', undefined, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('serve charts as SVG images that may not run script, and the stylesheet and scripts with their types', async () => {
    const svg = await get('/assets/metro-chicago-map.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(svg.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
    );
    expect(svg.text).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect((await get('/assets/site.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await get('/assets/search.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('answer unknown pages, unmeasured metros and odd paths with a 404 (a page for browsers, a problem for JSON callers), never a 500', async () => {
    for (const path of [
      '/metros/atlantis',
      '/metros/',
      '/metros/Chicago',
      '/assets/nothing.js',
      '/metros/..%2Fmeta',
      '/docs/',
      '/assets/a/b',
    ]) {
      const r = await get(path, 'text/html');
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const json = await get(path, 'application/json');
      expect(json.status, path).toBe(404);
      expect(json.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    }
    expect(pageNameOf('/metros/../meta')).toBeNull();
    expect(pageNameOf('/assets/.hidden')).toBeNull();
  });

  it('are refused for methods other than GET and HEAD', async () => {
    const r = await get('/docs', undefined, { method: 'POST', body: 'x' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

const siteDir = (): string => process.env.TEST_SITE_DIR as string;
const weekDir = resolve('data/weeks/2026-W47');

function jsonl<T>(file: string): T[] {
  return readFileSync(join(weekDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

describe('metro figures', () => {
  it('match a brute-force count over the raw samples (top 1/3/10 shares of top-three positions, sponsored-or-enhanced reach)', async () => {
    const places = jsonl<PlaceRecordT>('places.jsonl');
    const flags = jsonl<FlagRecordT>('flags.jsonl');
    const { firms } = groupFirms(
      places,
      flags.map((value, i) => ({ line: i + 1, value })),
    );
    const firmOf = new Map<string, { key: string; promoted: boolean }>();
    for (const f of firms)
      for (const o of f.offices)
        firmOf.set(o.place.place_id, { key: f.key, promoted: f.sponsored || f.profileType === 'enhanced' });
    const samples = jsonl<SampleRecordT>('samples.jsonl')
      .map((s) => SampleRecord.parse(s))
      .filter((s) => s.metro === 'chicago');

    let slots = 0;
    let promoted = 0;
    const held = new Map<string, number>();
    for (const s of samples) {
      const top = s.ranked.slice(0, 3);
      slots += top.length;
      if (top.some((id) => firmOf.get(id)?.promoted === true)) promoted++;
      for (const id of top) {
        const f = firmOf.get(id);
        if (f !== undefined) held.set(f.key, (held.get(f.key) ?? 0) + 1);
      }
    }
    const counts = [...held.values()].sort((a, b) => b - a);
    const share = (k: number): string =>
      `${(Math.round((1000 * counts.slice(0, k).reduce((a, b) => a + b, 0)) / slots) / 10).toFixed(1)}%`;

    const page = (await get('/metros/chicago')).text;
    const stat = (label: string): string | undefined =>
      new RegExp(`<strong>([\\d.]+%)</strong> ${label}`).exec(page)?.[1];
    expect(stat('of top-three positions held by the single most visible firm')).toBe(share(1));
    expect(stat('held by the top 3 firms')).toBe(share(3));
    expect(stat('held by the top 10 firms')).toBe(share(10));
    expect(stat('of samples had a sponsored or enhanced firm')).toBe(
      `${(Math.round((1000 * promoted) / samples.length) / 10).toFixed(1)}%`,
    );
    expect(page).toContain(`<strong>${held.size}</strong> firms held any top-three position`);
    expect(page).toContain(
      `${new Set(samples.map((s) => s.point_id)).size} grid points over the metro × 5 injury searches = ${samples.length} samples`,
    );
  });

  it('draw a Lorenz curve and Gini coefficient that agree with hand-computed cases', () => {
    expect(gini([5, 5, 5, 5])).toBe(0);
    expect(gini([0, 0, 0, 12])).toBe(0.75);
    expect(lorenz([0, 0, 1, 3])).toEqual([
      { offices: 0, appearances: 0 },
      { offices: 25, appearances: 0 },
      { offices: 50, appearances: 0 },
      { offices: 75, appearances: 25 },
      { offices: 100, appearances: 100 },
    ]);
  });

  it('draw a Lorenz curve of 100,000 offices from a bounded number of points, each left-out point within a pixel', () => {
    // A skewed metro: most offices never reach the top three, a few hold most appearances.
    const shares = Array.from({ length: 100_000 }, (_, i) => (i < 80_000 ? 0 : (i - 79_999) ** 2 % 997));
    const curve = lorenz(shares);
    const drawn = drawnLorenz(curve);
    expect(drawn.length).toBeLessThanOrEqual(LORENZ_DRAWN_POINTS);
    expect(drawn[0]).toEqual(curve[0]);
    expect(drawn.at(-1)).toEqual(curve.at(-1));
    // Brute force over every point of the exact curve: it lies between two drawn neighbours that are at most
    // 200 / (LORENZ_DRAWN_POINTS - 2) percent apart on the offices axis (one pixel of the 480-pixel chart).
    const gap = 200 / (LORENZ_DRAWN_POINTS - 2);
    let k = 0;
    const misplaced = curve.filter((point) => {
      while ((drawn[k + 1]?.offices ?? Infinity) < point.offices) k++;
      const left = drawn[k] as (typeof drawn)[number];
      const right = drawn[k + 1] ?? left;
      const between = left.offices <= point.offices && point.offices <= right.offices;
      const rising = left.appearances <= point.appearances && point.appearances <= right.appearances;
      return !between || !rising || right.offices - left.offices > gap;
    });
    expect(misplaced).toEqual([]);
    expect(Buffer.byteLength(lorenzSvg(shares, 'A large metro'))).toBeLessThan(64 * 1024);
    expect(drawnLorenz(lorenz([0, 0, 1, 3]))).toEqual(lorenz([0, 0, 1, 3]));
  });

  it('show week-over-week movement, since the sample has two weeks', async () => {
    const page = (await get('/metros/chicago')).text;
    expect(page).toMatch(/<th scope="col" class="num">2026-W46<\/th><th scope="col" class="num">2026-W47<\/th>/);
  });
});

describe('published pages', () => {
  it('are the same bytes when built twice from the same inputs', async () => {
    const { readInputs } = await import('../generator/inputs/read.ts');
    const inputs = await readInputs(resolve('data'), '2026-W47');
    const { firms } = groupFirms(
      inputs.places.map((r) => r.value),
      inputs.flags,
    );
    const { pageMeasurement } = await import('../generator/pages/write-pages.ts');
    const input = {
      dataDir: resolve('data'),
      week: '2026-W47',
      weekOf: '2026-11-16',
      synthetic: true,
      metros: inputs.metros,
      offices: [],
      measurement: pageMeasurement(
        inputs.metros,
        inputs.samples.map((r) => r.value),
        firms,
      ),
    };
    const a = await buildPages(input);
    const b = await buildPages({
      ...input,
      measurement: pageMeasurement(
        inputs.metros,
        inputs.samples.map((r) => r.value),
        firms,
      ),
    });
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [name, page] of a) expect(b.get(name)?.body, name).toBe(page.body);
  });

  it('keep / under 100 KB compressed with everything it loads', () => {
    const weights = measurePageWeights(siteDir());
    const index = weights.find((w) => w.path === '/');
    expect(index).toBeDefined();
    expect(index?.files.map((f) => f.path).sort()).toEqual(['/', '/assets/search.js', '/assets/site.css']);
    expect(index?.gzip).toBeLessThan(100 * 1000);
    expect(weights.filter((w) => w.path.startsWith('/metros/'))).toHaveLength(27);
  });
});
