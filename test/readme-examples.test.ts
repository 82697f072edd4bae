/**
 * The README's "Try it" examples run as written against the sample site: every curl line answers 200, the listing id it
 * names exists, and the --compressed line shows an encoded body.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

const README_BASE = 'http://127.0.0.1:8787';
let server: TestServer;

/** The `curl` lines of the README's "Try it" block: [flags, url]. */
function curlLines(): [string, string][] {
  const readme = readFileSync('README.md', 'utf8');
  const block = readme.slice(readme.indexOf('## Try it'), readme.indexOf('## Architecture'));
  return [...block.matchAll(/^curl (.*?)'([^']+)'$/gm)].map((m) => [m[1]?.trim() ?? '', m[2] ?? '']);
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('README examples', () => {
  it('every curl example answers 200 from the sample site, compressed where it asks for it', async () => {
    const lines = curlLines();
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const [flags, url] of lines) {
      expect(url.startsWith(README_BASE), url).toBe(true);
      const compressed = flags.includes('--compressed');
      const res = await fetch(server.url + url.slice(README_BASE.length), {
        // curl --compressed offers every coding it was built with; plain curl offers none.
        headers: { 'accept-encoding': compressed ? 'deflate, gzip, br, zstd' : 'identity' },
      });
      expect(res.status, url).toBe(200);
      if (compressed) {
        expect(res.headers.get('content-encoding'), url).toMatch(/^(br|gzip)$/);
        expect(res.headers.get('vary'), url).toMatch(/Accept-Encoding/);
        expect(res.headers.get('directory-version'), url).toBeTruthy();
      }
      const body = (await res.json()) as { listing_id?: string; covered?: boolean; results?: unknown[] };
      if (url.includes('/v1/firms/')) expect(body.listing_id, url).toBe(url.split('/').pop());
      if (url.includes('/v1/attorneys')) expect(body.results?.length ?? 0, url).toBeGreaterThan(0);
    }
  });
});
