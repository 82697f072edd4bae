/**
 * Property-based fuzz of the HTTP edge (fast-check), over raw HTTP against the real local server on the generated test
 * site: REST searches valid and hostile (object-key names and cities, duplicates, control bytes, huge values, broken
 * escapes), other paths, odd methods and headers, MCP messages and batches. Every answer is judged by
 * test/fuzz/oracle.ts against a brute force over the site's files. `npm run fuzz` runs the same with 100,000 cases.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpCase, restCase } from './fuzz/cases.ts';
import { describeCase, runCase } from './fuzz/run.ts';
import { indexSite, type SiteIndex } from './fuzz/site-index.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** Fixed seed so a failure replays; fast-check prints the shrunk case. */
const SEED = 20261122;

let site: SiteIndex;
let server: TestServer;
let port: number;

beforeAll(async () => {
  site = indexSite(process.env.TEST_SITE_DIR as string);
  server = await startTestServer({ RATE_LIMIT_PER_HOUR: '0' });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

async function holds(target: number, c: Parameters<typeof runCase>[2]): Promise<void> {
  const outcome = await runCase(site, target, c);
  if (outcome.violations.length > 0) throw new Error(`${outcome.violations.join('; ')}\n  ${describeCase(c)}`);
}

describe('fuzz of the HTTP edge (no rate limit)', () => {
  it('REST: 2,000 cases, no 5xx, every 4xx problem+json with a code, every search equal to the brute force', async () => {
    await fc.assert(fc.asyncProperty(restCase(site), (c) => holds(port, c)), { numRuns: 2000, seed: SEED });
  });

  it('MCP: 1,000 cases (messages and batches up to 120), no 5xx, every tool search equal to the brute force', async () => {
    await fc.assert(fc.asyncProperty(mcpCase(site), (c) => holds(port, c)), { numRuns: 1000, seed: SEED + 1 });
  });
});

describe('fuzz with the rate limit on', () => {
  it.each([
    ['REST', 0],
    ['MCP', 1],
  ] as const)('%s: 400 cases against a limit of 100 an hour: successful answers never cost more than 100, no rule broken', async (_name, which) => {
    const limited = await startTestServer({ RATE_LIMIT_PER_HOUR: '100' });
    try {
      const limitedPort = Number(new URL(limited.url).port);
      const arb = which === 0 ? restCase(site) : mcpCase(site);
      let units = 0;
      const broken: string[] = [];
      for (const c of fc.sample(arb, { numRuns: 400, seed: SEED + 2 + which })) {
        const outcome = await runCase(site, limitedPort, c);
        units += outcome.units;
        if (outcome.violations.length > 0 && broken.length < 5) broken.push(`${outcome.violations.join('; ')}\n  ${describeCase(c)}`);
      }
      expect(broken).toEqual([]);
      expect(units, 'searches and documents answered by a server limited to 100 an hour').toBeLessThanOrEqual(100);
    } finally {
      await limited.close();
    }
  });
});
