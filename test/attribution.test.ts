/**
 * The GeoNames (CC BY 4.0) and U.S. Census credit wherever the service publishes place data: every generated page's
 * footer, /v1/coverage `attribution` (also for a version published before the field existed), /terms and the OpenAPI
 * info, whose licence is the project's own (MIT) and whose terms are termsOfService only.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CC_BY_4_URL, DATA_SOURCES } from '../shim/contract/attribution.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { recordHash } from './helpers/rehash.ts';
import { linkSite, type SiteCopy } from './helpers/site-copy.ts';

type Json = Record<string, unknown>;
const SITE = (): string => process.env.TEST_SITE_DIR as string;

let server: TestApp;
let older: TestApp;
let copy: SiteCopy;

beforeAll(async () => {
  server = await startTestApp();
  // A version as published before coverage.json had `attribution`.
  copy = linkSite(SITE());
  const path = copy.own('coverage.json');
  const { attribution: _dropped, ...rest } = JSON.parse(readFileSync(path, 'utf8')) as Json;
  writeFileSync(path, JSON.stringify(rest));
  recordHash(copy, 'coverage.json');
  older = await startTestApp({ SITE_DIR: copy.dir });
});
afterAll(async () => {
  await Promise.all([server?.close(), older?.close()]);
  copy?.remove();
});

/** Every HTML page of the served version, as stored. */
function storedHtmlPages(): { path: string; body: string }[] {
  const { version } = JSON.parse(readFileSync(join(SITE(), 'current.json'), 'utf8')) as { version: string };
  const out: { path: string; body: string }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json')) {
        const doc = JSON.parse(readFileSync(full, 'utf8')) as { path: string; content_type: string; body: string };
        if (doc.content_type.startsWith('text/html')) out.push(doc);
      }
    }
  };
  walk(join(SITE(), 'v', version, 'pages'));
  return out;
}

function expectCredit(html: string, where: string): void {
  const footer = html.slice(html.indexOf('<footer'));
  expect(footer, where).toContain('contains data from GeoNames, licensed under CC BY 4.0');
  expect(footer, where).toContain('U.S. Census Bureau (public domain)');
  expect(footer, where).toContain('<a href="/terms#data">Sources and licences</a>');
}

describe('pages', () => {
  it('every generated page credits GeoNames (CC BY 4.0) and the Census in its footer', () => {
    const pages = storedHtmlPages();
    expect(pages.map((p) => p.path)).toEqual(expect.arrayContaining(['/', '/docs', '/corrections', '/metros/chicago']));
    for (const page of pages) expectCredit(page.body, page.path);
  });

  it('/terms and the problem pages carry the same footer, and /terms names each source with its licence', async () => {
    for (const path of ['/terms', '/problems/not_found'])
      expectCredit(await (await server.fetch(`${server.url}${path}`)).text(), path);
    const terms = await (await server.fetch(`${server.url}/terms`)).text();
    for (const source of DATA_SOURCES) {
      expect(terms).toContain(
        `<a href="${source.url}">${source.name}</a>: ${source.used_for.replace(/"/g, '&#34;')}. Licence: `,
      );
    }
    expect(terms).toContain(`<a href="${CC_BY_4_URL}">CC BY 4.0</a>`);
  });
});

describe('/v1/coverage', () => {
  it('ends with attribution: the notice and the five sources with their licences', async () => {
    const body = (await (await server.fetch(`${server.url}/v1/coverage`)).json()) as Json;
    expect(Object.keys(body).at(-1)).toBe('attribution');
    expect(Object.keys(body).at(-2)).toBe('disclosure');
    const attribution = body.attribution as {
      notice: string;
      sources: { name: string; licence: string; licence_url: string | null }[];
    };
    expect(attribution.notice).toMatch(
      /GeoNames .*CC BY 4\.0.*U\.S\. Census Bureau.*cartographic boundary files.*Natural Earth.*changed/,
    );
    expect(attribution.sources.map((s) => [s.licence, s.licence_url])).toEqual([
      ['Public domain', null],
      ['CC BY 4.0', CC_BY_4_URL],
      ['CC BY 4.0', CC_BY_4_URL],
      ['Public domain', null],
      ['Public domain', null],
    ]);
    expect(attribution.sources.map((s) => s.name).join(' ')).toMatch(/us-atlas.*world-atlas/);
  });

  it('a version published before the field existed is served with the same attribution', async () => {
    const current = (await (await server.fetch(`${server.url}/v1/coverage`)).json()) as Json;
    const reply = await older.fetch(`${older.url}/v1/coverage`);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as Json).attribution).toEqual(current.attribution);
  });
});

describe('/openapi.json', () => {
  it('info: the licence is MIT, the terms are termsOfService, the description credits the sources', async () => {
    const info = ((await (await server.fetch(`${server.url}/openapi.json`)).json()) as { info: Json }).info;
    expect(info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(info.termsOfService).toBe(`${server.url}/terms`);
    expect(info.description).toMatch(/GeoNames .*CC BY 4\.0/);
    expect(info.description).toMatch(/U\.S\. Census Bureau/);
  });
});
