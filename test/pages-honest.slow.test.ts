/**
 * The search page says what an answer means, in a real browser (Debian's chromium driven by playwright-core) against
 * the real local server: an unmeasured area is "no data", never "no firms found" or "the list is complete"; the sample
 * data is called fictional; cards name a metro by its name and count offices in good English; the disclosure a person
 * reads names no API field.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from './helpers/browser.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const browser = useChromium();

type Answer = {
  covered: boolean;
  disclosure: string;
  results: {
    name: string;
    brand_index: { metro: string; offices_measured: number } | null;
    map_visibility: { metro: string } | null;
  }[];
};

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function searchFor(location: string, radius?: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
  await page.getByLabel('ZIP code or city').fill(location);
  if (radius !== undefined) await page.getByLabel('Within').selectOption(radius);
  await page.getByRole('button', { name: 'Search' }).click();
  await page
    .locator('#results-heading')
    .filter({ hasText: /firms? within|No data/ })
    .waitFor();
  return page;
}

async function api(query: string): Promise<Answer> {
  return (await (await fetch(`${server.url}/v1/attorneys?${query}&limit=25`)).json()) as Answer;
}

/** Everything the page shows, as a person reads it. */
function visibleText(page: Page): Promise<string> {
  return page.evaluate<string>('document.body.innerText');
}

describe('an unmeasured area on the search page', () => {
  it.each<[string, string, string]>([
    ['ZIP 59001', '59001', 'location=59001&radius_miles=15'],
    ['New Haven, CT at 50 miles', 'New Haven, CT', 'location=New%20Haven%2C%20CT&radius_miles=50'],
  ])('%s: says there is no data, not that there are no firms', async (_label, location, query) => {
    const page = await searchFor(location, query.endsWith('50') ? '50' : undefined);
    const answer = await api(query);
    expect(answer.covered).toBe(false);
    const text = await visibleText(page);
    expect(text).not.toMatch(/No firms found/i);
    expect(text).not.toMatch(/list itself is complete/i);
    expect(text).not.toMatch(/\b0 of 0 firms/);
    const notice = page.locator('#not-covered');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toBe(`This area is not measured. ${answer.disclosure}`);
    expect(await notice.textContent()).toMatch(/does not mean there are no personal injury lawyers there/);
    expect(await page.locator('#status').textContent()).toMatch(/no data for this area/);
    // The notice says it all: no empty list and no second copy of the disclosure beside it.
    expect(await page.locator('#result-list').isVisible()).toBe(false);
    expect(await page.locator('#disclosure').isVisible()).toBe(false);
    await page.context().close();
  });
});

describe('result cards and the disclosure', () => {
  it('name the metro by its name, count offices in good English, and call the sample fictional without naming API fields', async () => {
    const page = await searchFor('Dallas, TX');
    const answer = await api('location=Dallas%2C%20TX');
    expect(answer.results.some((r) => r.brand_index?.metro === 'dallas-fort-worth')).toBe(true);
    const text = await visibleText(page);
    expect(text).toContain('searches in Dallas-Fort Worth');
    expect(text).not.toMatch(/searches in dallas-fort-worth/);
    expect(text).not.toMatch(/\(1 offices measured\)/);
    if (answer.results.some((r) => r.brand_index?.offices_measured === 1))
      expect(text).toContain('(1 office measured)');
    const disclosure = (await page.locator('#disclosure').textContent()) ?? '';
    expect(disclosure).toBe(answer.disclosure);
    expect(disclosure).toMatch(/fictional/);
    expect(disclosure).not.toMatch(/map_visibility|brand_index/);
    await page.context().close();
  });

  it('the page says the firms are fictional before any search', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/`);
    expect(await page.locator('#sample-data').textContent()).toMatch(/fictional/);
    expect(await page.locator('#disclosure').textContent()).toMatch(/^Sample data: .*fictional/);
    expect(await page.locator('#disclosure').textContent()).not.toMatch(/map_visibility|brand_index/);
    await page.context().close();
  });
});
