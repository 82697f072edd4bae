/**
 * The pages for people in a real browser (Debian's chromium driven by playwright-core) against the real local server
 * and the sample site: the search, the not-covered message, keyboard-only use, axe-core, the CSP and both widths.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disclosureFor } from '../shim/answer/disclosure.ts';
import { axeViolations, onCspReport, serious, useChromium } from './helpers/browser.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** Screenshots go to var/screenshots; with UPDATE_SCREENSHOTS=1 to docs/screenshots, which the README shows. */
const SHOTS = resolve(process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : 'var/screenshots');
const PAGES = ['/', '/metros/chicago', '/docs', '/corrections'] as const;

let server: TestServer;
const browser = useChromium();
/** CSP messages the browser reported, from every page opened through open(). */
const cspReports: string[] = [];

type Answer = { covered: boolean; results: { name: string; distance_miles: number }[] };

beforeAll(async () => {
  server = await startTestServer();
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await server?.close();
});

async function open(path: string, width = 1280, context?: BrowserContext): Promise<Page> {
  const ctx = context ?? (await browser.newContext({ viewport: { width, height: 900 } }));
  const page = await ctx.newPage();
  onCspReport(page, (m) => cspReports.push(`${path}: ${m}`));
  const response = await page.goto(server.url + path);
  expect(response?.status(), path).toBe(200);
  return page;
}

async function searchFor(page: Page, location: string): Promise<void> {
  await page.getByLabel('ZIP code or city').fill(location);
  await page.getByRole('button', { name: 'Search' }).click();
  await page
    .locator('#status')
    .filter({ hasText: /results?|No firms/ })
    .waitFor();
}

/** The visible result cards' names and distances, in page order. */
async function shownResults(page: Page): Promise<{ name: string; miles: number }[]> {
  return page.locator('#result-list > li').evaluateAll((items) =>
    items.map((li) => ({
      name: li.querySelector('h3')?.textContent ?? '',
      miles: Number(/([\d.]+) miles away/.exec(li.querySelector('.distance')?.textContent ?? '')?.[1]),
    })),
  );
}

describe('search page', () => {
  it('finds at least three firms near "Chicago, IL", shows their distances as the API gives them, and the disclosure beside them', async () => {
    const page = await open('/');
    await searchFor(page, 'Chicago, IL');
    const shown = await shownResults(page);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    const api = (await (await fetch(`${server.url}/v1/attorneys?location=Chicago,%20IL&limit=25`)).json()) as Answer;
    expect(shown).toEqual(api.results.map((r) => ({ name: r.name, miles: r.distance_miles })));
    for (let i = 1; i < shown.length; i++) expect(shown[i]!.miles).toBeGreaterThanOrEqual(shown[i - 1]!.miles);
    await expect(page.locator('#disclosure').textContent()).resolves.toBe(disclosureFor({ synthetic: true }));
    expect(await page.locator('#disclosure').isVisible()).toBe(true);
    expect(await page.locator('#not-covered').isVisible()).toBe(false);
    const first = page.locator('#result-list > li').first();
    expect(await first.locator('.address').textContent()).toMatch(/, IL \d{5}/);
    expect(await first.locator('.vis').first().textContent()).toMatch(
      /top three in \d+\.\d% .* of \d+ map searches in Chicago/,
    );
    const site = first.getByRole('link', { name: /^Website/ });
    if ((await site.count()) > 0) expect(await site.getAttribute('href')).toMatch(new RegExp(`^${server.url}/r/`));
    await page.context().close();
  });

  it('says plainly that an unmeasured ZIP is not measured', async () => {
    const api = (await (await fetch(`${server.url}/v1/attorneys?location=59101`)).json()) as Answer;
    expect(api.covered).toBe(false);
    const page = await open('/');
    await searchFor(page, '59101');
    expect(await page.locator('#not-covered').isVisible()).toBe(true);
    expect(await page.locator('#not-covered').textContent()).toContain('This area is not measured');
    await page.context().close();
  });

  it('says how the place was read when the answer has a location note ("NYC"), and shows none when it has none', async () => {
    const api = (await (await fetch(`${server.url}/v1/attorneys?location=NYC&limit=25`)).json()) as {
      location: { note?: string };
    };
    expect(api.location.note).toMatch(/"NYC".*New York, NY/);
    const page = await open('/');
    await searchFor(page, 'NYC');
    const note = page.locator('#location-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toBe(api.location.note);
    // The next search's answer (a ZIP's) has no note: the last one's must not stay on screen.
    await page.getByLabel('ZIP code or city').fill('60601');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#results-heading').filter({ hasText: 'Chicago, IL' }).waitFor();
    expect(await note.isVisible()).toBe(false);
    await page.context().close();
  });

  it('shows the problem detail for input the API rejects, and marks the field invalid', async () => {
    const page = await open('/');
    await page.getByLabel('ZIP code or city').fill('00000');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .locator('#status')
      .filter({ hasText: /ZIP|location/ })
      .waitFor();
    expect(await page.locator('#location').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#results').isVisible()).toBe(false);
    await page.context().close();
  });

  it('searches around the browser\'s position with "Use my location"', async () => {
    const ctx = await browser.newContext({
      geolocation: { latitude: 41.8781, longitude: -87.6298 },
      permissions: ['geolocation'],
    });
    const page = await open('/', 1280, ctx);
    await page.getByRole('button', { name: 'Use my location' }).click();
    await page
      .locator('#status')
      .filter({ hasText: /results/ })
      .waitFor();
    expect(await page.getByLabel('ZIP code or city').inputValue()).toBe('41.8781,-87.6298');
    const api = (await (await fetch(`${server.url}/v1/attorneys?location=41.8781,-87.6298&limit=25`)).json()) as Answer;
    expect((await shownResults(page)).map((r) => r.name)).toEqual(api.results.map((r) => r.name));
    await ctx.close();
  });

  it('reaches the results with the keyboard alone', async () => {
    const page = await open('/');
    // Evaluated in the page; strings, because this project compiles without the DOM library.
    const focusedId = (): Promise<string> =>
      page.evaluate<string>("document.activeElement ? document.activeElement.id : ''");
    let tabs = 0;
    while ((await focusedId()) !== 'location' && tabs++ < 15) await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('location');
    await page.keyboard.type('Chicago, IL');
    await page.keyboard.press('Enter');
    await page.locator('#result-list > li').first().waitFor();
    // Focus moves to the results heading, so the next Tab lands in the first result.
    expect(await focusedId()).toBe('results-heading');
    await page.keyboard.press('Tab');
    const inFirstResult = await page.evaluate<boolean>(
      "document.activeElement.closest('#result-list > li') === document.querySelector('#result-list > li')",
    );
    expect(inFirstResult).toBe(true);
    await page.context().close();
  });
});

describe('every page', () => {
  it.each(PAGES)('%s has no serious or critical axe-core violations', async (path) => {
    // axe is injected as a script, which the pages' CSP rightly refuses; this context bypasses CSP for the audit only.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await open(path, 1280, ctx);
    if (path === '/') await searchFor(page, 'Chicago, IL');
    if (path === '/docs') await page.locator('.opblock').first().waitFor();
    expect(serious(await axeViolations(page))).toEqual([]);
    await ctx.close();
  });

  it.each(PAGES)(
    '%s fits 390 px and 1280 px without sideways scrolling, loads no other host and breaks no CSP rule',
    async (path) => {
      for (const width of [390, 1280]) {
        const page = await open(path, width);
        const hosts = new Set<string>();
        page.on('request', (r) => hosts.add(new URL(r.url()).host));
        if (path === '/') await searchFor(page, 'Chicago, IL');
        if (path === '/docs') await page.locator('.opblock').first().waitFor();
        await page.reload();
        if (path === '/') await searchFor(page, 'Chicago, IL');
        if (path === '/docs') await page.locator('.opblock').first().waitFor();
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow, `${path} at ${width} px`).toBeLessThanOrEqual(0);
        expect([...hosts]).toEqual([new URL(server.url).host]);
        const name = path === '/' ? 'search' : path.slice(1).replace(/\//g, '-');
        // The search page is shown at its results (a full page of 25 results would be a very long image).
        if (path === '/') await page.locator('#results-heading').scrollIntoViewIfNeeded();
        if (path === '/docs') await page.evaluate("document.getElementById('reference').scrollIntoView()");
        await page.screenshot({
          path: join(SHOTS, `${name}-${width}.png`),
          fullPage: path !== '/docs' && path !== '/',
        });
        await page.context().close();
      }
      expect(cspReports).toEqual([]);
    },
  );

  it('sets no cookie', async () => {
    const ctx = await browser.newContext();
    for (const path of PAGES) await (await open(path, 1280, ctx)).close();
    expect(await ctx.cookies()).toEqual([]);
    await ctx.close();
  });
});
