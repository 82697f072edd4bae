/**
 * `npm run fuzz`: property-based fuzz of the HTTP edge with many cases (default 100,000) against the real local server
 * on loopback, REST and MCP, with the rate limit off and on. Progress on stderr, a summary table on stdout; exits 1
 * when any answer breaks a rule (see test/fuzz/oracle.ts).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { EXIT, runCli } from '../../shim/lib/cli-run.ts';
import { loadConfig } from '../../shim/edge/env.ts';
import { startServer, type RunningServer } from '../../shim/server.ts';
import { mcpCase, restCase, type FuzzCase } from './cases.ts';
import { describeCase, newTally, record, runAll, type Tally } from './run.ts';
import { indexSite, type SiteIndex } from './site-index.ts';

const SPEC = {
  name: 'fuzz',
  usage: 'npm run fuzz -- [options]',
  description: `Sends fast-check generated requests (REST searches valid and hostile, other paths, odd methods and headers, MCP
messages and batches) over raw HTTP to the real local server on 127.0.0.1, and checks every answer: no 5xx, a
problem+json with a code for every 4xx (a JSON-RPC error object is accepted on /mcp), every 200 search equal to a
brute force over the site's files (sorted by distance, within the radius, at most limit), redirects only to listed
sites, no request Host echoed. With the rate limit on, successful answers between two server restarts never cost more
than the limit.`,
  options: {
    cases: {
      type: 'integer',
      min: 1,
      description: 'total cases over the four runs: REST 40%, MCP 30% with no limit; REST 15%, MCP 15% limited',
      default: 100_000,
    },
    seed: {
      type: 'integer',
      min: 0,
      description: 'fast-check seed; the same seed replays the same cases',
      default: 20261122,
    },
    concurrency: { type: 'integer', min: 1, description: 'requests in flight', default: 8 },
    site: {
      type: 'string',
      arg: 'dir',
      description: 'generated site to serve (default var/test-site, generated from data/ when missing)',
      default: 'var/test-site',
    },
    limit: {
      type: 'integer',
      min: 1,
      description: 'RATE_LIMIT_PER_HOUR of the limited runs; the server restarts every 4 x N cases',
      default: 300,
    },
  },
  exits: { [EXIT.ok]: 'every answer kept the rules', [EXIT.failure]: 'an answer broke a rule' },
} as const;

const CHUNK = 500;

interface Run {
  name: string;
  arb: fc.Arbitrary<FuzzCase>;
  cases: number;
  limit: number;
}

function* cases(arb: fc.Arbitrary<FuzzCase>, total: number, seed: number): Generator<FuzzCase> {
  for (let start = 0, chunk = 0; start < total; start += CHUNK, chunk++) {
    yield* fc.sample(arb, { numRuns: Math.min(CHUNK, total - start), seed: seed + chunk });
  }
}

async function start(siteDir: string, logDir: string, limit: number): Promise<RunningServer> {
  return startServer(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SITE_DIR: siteDir,
      LOG_DIR: logDir,
      RATE_LIMIT_PER_HOUR: String(limit),
    }),
  );
}

function portOf(server: RunningServer): number {
  return Number(new URL(server.url).port);
}

function statusText(t: Tally): string {
  return [...t.statuses]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
}

async function fuzz(
  site: SiteIndex,
  siteDir: string,
  run: Run,
  seed: number,
  concurrency: number,
): Promise<{ tally: Tally; seconds: number; overspent: string[] }> {
  const logDir = mkdtempSync(join(tmpdir(), 'iad-fuzz-log-'));
  const tally = newTally();
  const overspent: string[] = [];
  const segment = run.limit === 0 ? run.cases : run.limit * 4;
  const began = performance.now();
  let lastReport = began;
  try {
    for (let from = 0; from < run.cases; from += segment) {
      const server = await start(siteDir, logDir, run.limit);
      const before = tally.units;
      try {
        await runAll(
          site,
          portOf(server),
          cases(run.arb, Math.min(segment, run.cases - from), seed + from),
          concurrency,
          (c, o) => {
            record(tally, c, o);
            const now = performance.now();
            if (now - lastReport > 2000) {
              lastReport = now;
              const rate = tally.cases / ((now - began) / 1000);
              process.stderr.write(
                `[fuzz] ${run.name}: ${tally.cases}/${run.cases} (${rate.toFixed(0)}/s) violating ${tally.violating} | ${statusText(tally)}\n`,
              );
            }
          },
        );
      } finally {
        await server.close(1000);
      }
      const spent = tally.units - before;
      if (run.limit > 0 && spent > run.limit)
        overspent.push(`cases ${from}..${from + segment}: ${spent} successful answers under a limit of ${run.limit}`);
    }
  } finally {
    rmSync(logDir, { recursive: true, force: true });
  }
  return { tally, seconds: (performance.now() - began) / 1000, overspent };
}

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const { values } = cli;
  const { seed, concurrency, limit } = values;
  const total = values.cases;
  const siteDir = resolve(values.site);
  if (!existsSync(join(siteDir, 'current.json'))) {
    process.stderr.write(`[fuzz] no site in ${siteDir}: generating it from data/ ...\n`);
    const { synthesize } = await import('../../data/synth/synthesize.ts');
    const { generateLive } = await import('../helpers/generate-live.ts');
    if (!existsSync(resolve('data/weeks'))) await synthesize({ outDir: resolve('data/weeks'), quiet: true });
    await generateLive({ dataDir: resolve('data'), outDir: siteDir, quiet: true });
  }
  const site = indexSite(siteDir);
  // The in-process server reports what it refused or failed on to stderr; count those lines instead of printing each.
  const serverLines = new Map<string, number>();
  console.error = (...args: unknown[]): void => {
    const key =
      args
        .map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a)))
        .join(' ')
        .split('\n')[0]
        ?.slice(0, 110) ?? '';
    serverLines.set(key, (serverLines.get(key) ?? 0) + 1);
  };
  process.stderr.write(
    `[fuzz] site ${site.version}: ${site.offices.length} offices; ${total} cases, seed ${seed}, ${concurrency} in flight\n`,
  );

  const runs: Run[] = [
    { name: 'REST, no limit', arb: restCase(site), cases: Math.round(total * 0.4), limit: 0 },
    { name: 'MCP, no limit', arb: mcpCase(site), cases: Math.round(total * 0.3), limit: 0 },
    { name: `REST, limit ${limit}/h`, arb: restCase(site), cases: Math.round(total * 0.15), limit },
    {
      name: `MCP, limit ${limit}/h`,
      arb: mcpCase(site),
      cases: total - Math.round(total * 0.4) - Math.round(total * 0.3) - Math.round(total * 0.15),
      limit,
    },
  ];
  const lines = ['| run | cases | seconds | statuses | violations |', '|---|---:|---:|---|---:|'];
  let failed = 0;
  let allCases = 0;
  let allSeconds = 0;
  for (const [i, run] of runs.entries()) {
    const { tally, seconds, overspent } = await fuzz(site, siteDir, run, seed + i * 1_000_003, concurrency);
    const bad = tally.violating + overspent.length;
    failed += bad;
    allCases += tally.cases;
    allSeconds += seconds;
    lines.push(`| ${run.name} | ${tally.cases} | ${seconds.toFixed(0)} | ${statusText(tally)} | ${bad} |`);
    for (const [kind, { count, example }] of [...tally.kinds].sort((a, b) => b[1].count - a[1].count)) {
      process.stderr.write(
        `\n[fuzz] VIOLATION (${run.name}) ${count} x ${kind}; first case:\n  ${describeCase(example)}\n`,
      );
    }
    for (const o of overspent) process.stderr.write(`\n[fuzz] VIOLATION (${run.name}): rate limit evaded: ${o}\n`);
  }
  const top = [...serverLines].sort((a, b) => b[1] - a[1]).slice(0, 12);
  if (top.length > 0)
    process.stderr.write(
      `\n[fuzz] the server's own stderr, most frequent lines:\n${top.map(([l, n]) => `  ${n} x ${l}`).join('\n')}\n`,
    );
  lines.push(`| all | ${allCases} | ${allSeconds.toFixed(0)} | | ${failed} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stderr.write(
    `[fuzz] ${failed === 0 ? 'passed' : `FAILED: ${failed} violating cases (one case of each kind shown above)`}\n`,
  );
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
