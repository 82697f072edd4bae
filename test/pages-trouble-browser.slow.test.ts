/**
 * When something goes wrong, in a real browser (Debian's chromium driven by playwright-core) against the real local
 * server: a 404, a 429 and a 503 are pages in the site's style that say what to do next, the problem pages and /terms
 * look like the rest of the site, each with the page CSP and no CSP violation, and API callers keep problem+json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Page, Response as PwResponse } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../shim/http/page-response.ts';
import { axeViolations, onCspReport, serious, useChromium } from './helpers/browser.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { linkSite, type SiteCopy } from './helpers/site-copy.ts';

/** The soft background site.css gives the header (#f5f4fa): proof the stylesheet was applied. */
const HEADER_BACKGROUND = 'rgb(245, 244, 250)';

let server: TestServer;
/** Over its quota after two requests. */
let limited: TestServer;
/** Serves a copy of the site whose coverage document is damaged. */
let damaged: TestServer;
let copy: SiteCopy;
const browser = useChromium();

beforeAll(async () => {
  server = await startTestServer();
  limited = await startTestServer({ RATE_LIMIT_PER_HOUR: '2' });
  copy = linkSite(process.env.TEST_SITE_DIR as string);
  const coverage = copy.own('coverage.json');
  writeFileSync(coverage, readFileSync(coverage, 'utf8').slice(0, 40));
  damaged = await startTestServer({ SITE_DIR: copy.dir });
});
afterAll(async () => {
  await Promise.all([server?.close(), limited?.close(), damaged?.close()]);
  copy?.remove();
});

/** A page opened at `url`, with the CSP reports and failed subresources the browser saw while loading it. */
async function visit(url: string): Promise<{ page: Page; response: PwResponse; csp: string[]; failed: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const csp: string[] = [];
  const failed: string[] = [];
  onCspReport(page, (m) => csp.push(m));
  page.on('response', (r) => {
    if (r.request().resourceType() !== 'document' && !r.url().endsWith('/favicon.ico') && r.status() >= 400)
      failed.push(`${r.status()} ${r.url()}`);
  });
  const response = await page.goto(url, { waitUntil: 'load' });
  if (response === null) throw new Error(`no response for ${url}`);
  return { page, response, csp, failed };
}

/** What a person checks on any page: the site's header, navigation and footer credit, styled, with the page CSP. */
async function expectSitePage(v: Awaited<ReturnType<typeof visit>>): Promise<void> {
  const { page, response, csp, failed } = v;
  expect(response.headers()['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers()['content-security-policy']).toBe(PAGE_CSP);
  expect(response.headers()['x-frame-options']).toBe('DENY');
  expect(response.headers()['referrer-policy']).toBe('no-referrer');
  expect(await page.locator('header.site').getByRole('link', { name: 'Injury Attorney Directory' }).isVisible()).toBe(
    true,
  );
  expect(await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Search' }).isVisible()).toBe(
    true,
  );
  expect(await page.locator('footer.site').textContent()).toMatch(/GeoNames.*CC BY 4\.0.*U\.S\. Census Bureau/s);
  expect(await page.evaluate<string>("getComputedStyle(document.querySelector('header.site')).backgroundColor")).toBe(
    HEADER_BACKGROUND,
  );
  expect(failed).toEqual([]);
  expect(csp).toEqual([]);
}

async function seriousAxeViolations(url: string): Promise<string[]> {
  const ctx = await browser.newContext({ bypassCSP: true });
  const page = await ctx.newPage();
  await page.goto(url);
  const found = await axeViolations(page);
  await ctx.close();
  return serious(found).map((v) => v.id);
}

describe('a browser that meets a problem gets a page in the site style', () => {
  it('404 at an unknown path says there is no page there and links back to the search', async () => {
    const v = await visit(`${server.url}/nope`);
    expect(v.response.status()).toBe(404);
    await expectSitePage(v);
    expect(await v.page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await v.page.locator('main').textContent()).toContain('There is no page at /nope');
    expect(await v.page.locator('main').getByRole('link', { name: 'the search page' }).getAttribute('href')).toBe('/');
    expect(await seriousAxeViolations(`${server.url}/nope`)).toEqual([]);
    await v.page.context().close();
  });

  it('404 at an unknown metro names it and points to the measured metros', async () => {
    const v = await visit(`${server.url}/metros/atlantis`);
    expect(v.response.status()).toBe(404);
    await expectSitePage(v);
    expect(await v.page.locator('main').textContent()).toContain('There is no measured metro called “atlantis”');
    expect(await v.page.locator('main').getByRole('link', { name: 'the measured metros' }).getAttribute('href')).toBe(
      '/#metros',
    );
    await v.page.context().close();
  });

  it('429 says when to come back in minutes and at what time, not in thousands of seconds', async () => {
    // Pages spend no answers, so the browser meets the 429 on an API address it opened, after the limit is spent.
    for (let i = 0; i < 3; i++) await fetch(`${limited.url}/v1/coverage`);
    const v = await visit(`${limited.url}/v1/coverage`);
    expect(v.response.status()).toBe(429);
    expect(Number(v.response.headers()['retry-after'])).toBeGreaterThan(3000);
    await expectSitePage(v);
    const text = (await v.page.locator('main').textContent()) ?? '';
    expect(await v.page.getByRole('heading', { level: 1 }).textContent()).toBe('Too many requests from your network');
    expect(text).toMatch(/search again in about (1 hour|\d{2} minutes), at \d{2}:\d{2} UTC/);
    expect(text).not.toMatch(/\d{3,} seconds/);
    await v.page.context().close();
  });

  it('503 says the directory is unavailable for a moment and when to try again', async () => {
    const v = await visit(`${damaged.url}/v1/coverage`);
    expect(v.response.status()).toBe(503);
    await expectSitePage(v);
    expect(await v.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'The directory is unavailable for a moment',
    );
    expect(await v.page.locator('main').textContent()).toContain('Try again in 30 seconds');
    await v.page.context().close();
  });
});

describe('problem pages and /terms', () => {
  it.each(['/problems/not_found', '/problems/rate_limited', '/terms'])(
    '%s is styled like the site, with its CSP and security headers',
    async (path) => {
      const v = await visit(`${server.url}${path}`);
      expect(v.response.status()).toBe(200);
      await expectSitePage(v);
      expect(v.response.headers()['cross-origin-opener-policy']).toBe('same-origin');
      expect(v.response.headers()['permissions-policy']).toContain('geolocation=()');
      expect(await seriousAxeViolations(`${server.url}${path}`)).toEqual([]);
      await v.page.context().close();
    },
  );

  it('/terms lists the data sources with their licences', async () => {
    const v = await visit(`${server.url}/terms`);
    const data = v.page.locator('#data + p + ul');
    expect(await data.getByRole('link', { name: 'CC BY 4.0' }).first().getAttribute('href')).toBe(
      'https://creativecommons.org/licenses/by/4.0/',
    );
    expect(await data.textContent()).toMatch(/U\.S\. Census Bureau.*Public domain/s);
    await v.page.context().close();
  });
});

describe('API callers keep problem+json', () => {
  it.each([
    ['application/json', '/nope'],
    ['*/*', '/metros/atlantis'],
    ['application/problem+json, text/html;q=0.5', '/nope'],
  ])('Accept: %s at %s', async (accept, path) => {
    const reply = await fetch(`${server.url}${path}`, { headers: { accept } });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(reply.headers.get('vary')).toMatch(/Accept(,|$)/);
    expect(((await reply.json()) as { code: string }).code).toBe('not_found');
  });

  it('the rate-limit detail says the wait in words, with the seconds in Retry-After', async () => {
    const reply = await fetch(`${limited.url}/v1/coverage`);
    expect(reply.status).toBe(429);
    const detail = ((await reply.json()) as { detail: string }).detail;
    expect(detail).toMatch(/Retry in (1 hour|\d+ minutes) \(Retry-After gives the seconds\)\.$/);
    expect(detail).not.toMatch(/\d{3,} seconds/);
  });
});
