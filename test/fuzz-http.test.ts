/**
 * Property-based fuzz of the HTTP edge (fast-check), over raw HTTP against the real local server on the generated test
 * site: REST searches valid and hostile (object-key names and cities, duplicates, control bytes, huge values, broken
 * escapes), other paths, odd methods and headers, MCP messages and batches. Every answer is judged by
 * test/fuzz/oracle.ts against a brute force over the site's files. `npm run fuzz` runs the same with 100,000 cases.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpCase, restCase } from './fuzz/cases.ts';
import { sendRaw } from './fuzz/raw-http.ts';
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
    await fc.assert(
      fc.asyncProperty(restCase(site), (c) => holds(port, c)),
      { numRuns: 2000, seed: SEED },
    );
  });

  it('MCP: 1,000 cases (messages and batches up to 120), no 5xx, every tool search equal to the brute force', async () => {
    await fc.assert(
      fc.asyncProperty(mcpCase(site), (c) => holds(port, c)),
      { numRuns: 1000, seed: SEED + 1 },
    );
  });
});

describe('fuzz with the rate limit on', () => {
  it.each([
    ['REST', 0],
    ['MCP', 1],
  ] as const)(
    '%s: 400 cases against a limit of 100 an hour: successful answers never cost more than 100, no rule broken',
    async (_name, which) => {
      const limited = await startTestServer({ RATE_LIMIT_PER_HOUR: '100' });
      try {
        const limitedPort = Number(new URL(limited.url).port);
        const arb = which === 0 ? restCase(site) : mcpCase(site);
        let units = 0;
        const broken: string[] = [];
        for (const c of fc.sample(arb, { numRuns: 400, seed: SEED + 2 + which })) {
          const outcome = await runCase(site, limitedPort, c);
          units += outcome.units;
          if (outcome.violations.length > 0 && broken.length < 5)
            broken.push(`${outcome.violations.join('; ')}\n  ${describeCase(c)}`);
        }
        expect(broken, broken.join('\n')).toEqual([]);
        expect(units, 'searches and documents answered by a server limited to 100 an hour').toBeLessThanOrEqual(100);
      } finally {
        await limited.close();
      }
    },
  );
});

/** The fields of a request log line (README "Privacy": the location sent, time, user agent, salted address hash, and what was answered). */
const LOG_FIELDS = [
  'address_hash',
  'covered',
  'endpoint',
  'location',
  'metro',
  'query_id',
  'result_count',
  'src',
  'status',
  'time',
  'user_agent',
  'zip3',
];

function logLines(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((line) => line !== '');
}

describe('log injection', () => {
  it('after 500 fuzz cases, every request log line is one JSON object with exactly the logged fields and no raw address', async () => {
    for (const c of fc.sample(restCase(site), { numRuns: 300, seed: SEED + 7 })) await runCase(site, port, c);
    for (const c of fc.sample(mcpCase(site), { numRuns: 200, seed: SEED + 8 })) await runCase(site, port, c);
    await server.flushLog();
    const lines = logLines(server.logDir);
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(entry).sort()).toEqual(LOG_FIELDS);
      expect(line).not.toContain('127.0.0.1');
    }
  });

  it('a user agent, location and src made to look like extra log lines or fields stay inside their own fields', async () => {
    await server.flushLog();
    const before = logLines(server.logDir).length;
    const forged = '{"status":200,"address_hash":"forged"}';
    // Header values travel as Latin-1 bytes, so the user agent is ASCII; the JSON arguments carry the line separators.
    const ua = `evil" ${forged} \\`;
    const args = { location: `60601\n${forged}\u2028\u2029`, src: 'x","status":1' };
    const rest = await sendRaw(port, {
      method: 'GET',
      target: `/v1/attorneys?zip=60601&src=${encodeURIComponent('a"}\\u000a{"b')}`,
      headers: [
        ['host', `127.0.0.1:${port}`],
        ['user-agent', ua],
      ],
    });
    const mcp = await sendRaw(port, {
      method: 'POST',
      target: '/mcp',
      headers: [
        ['host', `127.0.0.1:${port}`],
        ['user-agent', ua],
        ['content-type', 'application/json'],
        ['accept', 'application/json, text/event-stream'],
        ['mcp-protocol-version', '2025-11-25'],
      ],
      body: Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'find_injury_attorneys', arguments: args },
        }),
      ),
    });
    expect(rest?.status).toBe(200);
    // The location is not understood (a tool error result), but the call is still logged as sent.
    expect(mcp?.status).toBe(200);
    await server.flushLog();
    const added = logLines(server.logDir)
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(added).toHaveLength(2);
    for (const entry of added) {
      expect(entry.user_agent).toBe(ua);
      expect(entry.address_hash).not.toBe('forged');
      expect(Object.keys(entry).sort()).toEqual(LOG_FIELDS);
    }
    expect(added.map((e) => e.src)).toEqual(['a"}\\u000a{"b', args.src]);
    // Line separators and control characters in a logged field are replaced by U+FFFD (RELIABILITY.md, log text).
    expect(added[1]?.location).toBe(args.location.replace(/[\n\u2028\u2029]/g, '\uFFFD'));
  });
});
