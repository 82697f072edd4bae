/** Debian's Chromium driven by playwright-core, as every browser test uses it: launch, CSP reports, axe-core audit. */
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
/** Console messages by which Chromium reports a Content-Security-Policy or Trusted Types violation. */
const CSP_MESSAGE = /Content Security Policy|Trusted Type/i;

/** Debian's Chromium (/usr/bin/chromium), headless; no sandbox, as in a container. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/** What the tests use of a browser: fresh contexts and pages. */
export type TestBrowser = Pick<Browser, 'newContext' | 'newPage'>;

/**
 * Chromium launched before the tests of the file that calls this and closed after them (its hooks are registered
 * where it is called). Use the returned handle only in hooks and tests.
 */
export function useChromium(): TestBrowser {
  let browser: Browser | undefined;
  const now = (): Browser => {
    if (browser === undefined) throw new Error('Chromium is not running: use useChromium() in hooks and tests only');
    return browser;
  };
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    newContext: (...args) => now().newContext(...args),
    newPage: (...args) => now().newPage(...args),
  };
}

/** Calls `report` with each CSP or Trusted Types violation the page reports from now on. */
export function onCspReport(page: Page, report: (message: string) => void): void {
  page.on('console', (m) => {
    if (CSP_MESSAGE.test(m.text())) report(m.text());
  });
}

/** One axe-core finding: the rule, its impact and on how many elements. */
export interface AxeViolation {
  id: string;
  impact: string;
  nodes: number;
}

/** axe-core's findings on the page as it is now (the page's context must bypass CSP: axe is injected as a script). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate<AxeViolation[]>(
    'axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
  );
}

/** The findings a person is stopped by: serious and critical. */
export const serious = (found: AxeViolation[]): AxeViolation[] =>
  found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
