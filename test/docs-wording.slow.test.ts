/**
 * Words a reader checks against what the service does: the README and /docs list the four operations (/v1/changes
 * included), docs/AUDIT.md says how the API names its version, and /docs' MCP snippets name the origin the page was
 * opened on (in Chromium), not a placeholder.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onCspReport, useChromium } from './helpers/browser.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const browser = useChromium();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const OPERATIONS = ['GET /v1/attorneys', 'GET /v1/firms/{listing_id}', 'GET /v1/coverage', 'GET /v1/changes'];

describe('the operations', () => {
  it('README names the four operations, /v1/changes included, and never "three operations"', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).not.toMatch(/three operations/i);
    const api = readme.slice(readme.indexOf('## Public API'), readme.indexOf('### `GET /v1/attorneys`'));
    expect(api).toMatch(/^Four read-only operations/m);
    for (const op of OPERATIONS) expect(api).toContain(`\`${op}\``);
  });

  it('/docs names the four operations, /v1/changes included', async () => {
    const html = await (await fetch(`${server.url}/docs`, { headers: { accept: 'text/html' } })).text();
    expect(html).not.toMatch(/three (read-only )?operations/i);
    expect(html).toContain('Four read-only operations');
    for (const op of OPERATIONS) expect(html).toContain(`<code>${op}</code>`);
  });
});

describe('docs/AUDIT.md', () => {
  it('says the API names its version (Directory-Version header, /v1/coverage version)', () => {
    const audit = readFileSync('docs/AUDIT.md', 'utf8');
    expect(audit).not.toContain('does not expose its version');
    expect(audit).toMatch(/`Directory-Version` header/);
    expect(audit).toMatch(/`GET \/v1\/coverage` has `version`/);
  });
});

describe('/docs MCP snippets', () => {
  it('name the origin the page was opened on, whatever the host', async () => {
    // localhost rather than 127.0.0.1: the snippets follow the page's own origin, not the address the server bound.
    const origin = server.url.replace('127.0.0.1', 'localhost');
    const page = await browser.newPage();
    const csp: string[] = [];
    onCspReport(page, (m) => csp.push(m));
    await page.goto(`${origin}/docs`);
    const mcp = page.locator('main');
    // docs.js runs after the deferred 1.7 MB Swagger UI bundle: seconds on a slow or busy machine, not poll's default 1 s.
    await expect.poll(() => mcp.locator('.origin').first().textContent(), { timeout: 20_000 }).toBe(origin);
    const snippets = await page.locator('#mcp ~ pre > code').allTextContents();
    expect(snippets).toHaveLength(3);
    for (const text of snippets) {
      expect(text).toContain(`${origin}/mcp`);
      expect(text).not.toContain('<this host>');
    }
    expect(JSON.parse(snippets[0] as string)).toEqual({
      mcpServers: { 'injury-attorney-directory': { url: `${origin}/mcp` } },
    });
    expect(csp).toEqual([]);
    await page.close();
  });
});
