/**
 * `npm run soak`: a bounded load run against the real local server in a child process: 50 connections (autocannon) for
 * a few minutes over varied requests (points around every measured metro at every radius, ZIPs, cities, firm
 * documents, coverage, MCP tool calls, and some bad queries that must be 400). Reports errors (must be 0) and the
 * server's resident memory at start, after warm-up, at its peak and at the end; exits 1 on any error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { lineSplitter, REPO } from '../lib/child.ts';
import { loadMetros } from '../lib/points.ts';
import { seededRandom } from '../../generator/audit/queries.ts';
import { EXIT, runCli } from '../../shim/lib/cli-run.ts';

const SPEC = {
  name: 'soak',
  usage: 'npm run soak -- [options]',
  description: `Starts the real local server (bench/soak/soak-server.ts: request log on, rate limit off) in a child process on 127.0.0.1
and drives it with autocannon over varied requests: points scattered around all measured metros at radii 1-50 and
limits 1-25, ZIPs, "City, ST", firm documents, /v1/coverage, MCP tools/call POSTs, and one bad query in ten (must be
400). Samples the server's RSS every second. Errors are socket errors, timeouts and any answer other than the
expected 200 or 400; the run fails unless they are 0.`,
  options: {
    seconds: { type: 'integer', min: 1, description: 'length of the load', default: 180 },
    connections: { type: 'integer', min: 1, description: 'concurrent connections', default: 50 },
    site: {
      type: 'string',
      arg: 'dir',
      description:
        'published site to serve (default: site/, which npm start releases the sample into on its first run, else\nvar/test-site/, which the tests make)',
    },
    seed: { type: 'integer', min: 1, description: 'seed of the request mix', default: 1 },
  },
  exits: {
    [EXIT.ok]: 'no errors',
    [EXIT.failure]: 'errors, or the server failed',
    [EXIT.usage]: 'usage error, or no published site to serve',
  },
} as const;

interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'response', cb: (client: unknown, statusCode: number) => void): void;
  stop(): void;
}
type Autocannon = (
  opts: { url: string; connections: number; duration: number; timeout: number; requests: AutocannonRequest[] },
  done: (err: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Resident set size of `pid` in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb === undefined ? NaN : Number(kb) / 1024;
}

/** The server child: its address, its pid, the [shim] lines it wrote to stderr (counted, first few kept), and stop(). */
interface ServerChild {
  url: string;
  pid: number;
  stderr: { lines: number; first: string[] };
  stop(): Promise<void>;
}

function startServerChild(site: string): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak/soak-server.ts', '--site', site], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr = { lines: 0, first: [] as string[] };
  // A failing request logs a stack trace; count the report lines rather than flood the terminal.
  const err = lineSplitter((line) => {
    if (line.startsWith('[soak-mem]')) process.stderr.write(`${line}\n`);
    if (!line.startsWith('[shim]')) return;
    stderr.lines++;
    if (stderr.first.length < 3 && !stderr.first.includes(line)) stderr.first.push(line.slice(0, 200));
  });
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolvePromise, reject) => {
    const out = lineSplitter((line) => {
      const { url, pid } = JSON.parse(line) as { url: string; pid: number };
      resolvePromise({
        url,
        pid,
        stderr,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready`)));
  });
}

/** The varied request mix: `n` requests drawn with a seeded PRNG; every tenth is a bad query expected to be 400. */
function requestMix(site: string, n: number, seed: number): AutocannonRequest[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const metros = loadMetros();
  const { version } = JSON.parse(readFileSync(join(site, 'current.json'), 'utf8')) as { version: string };
  const zipDoc = JSON.parse(readFileSync(join(site, 'v', version, 'gazetteer', 'zip', '606.json'), 'utf8')) as {
    zips: Record<string, unknown>;
  };
  const zips = [
    ...Object.keys(zipDoc.zips),
    '10001',
    '90012',
    '77002',
    '85004',
    '19103',
    '78701',
    '98101',
    '33130',
    '30303',
    '02108',
  ];
  const listings = [
    ...readFileSync(join(site, 'v', version, 'manifest.json'), 'utf8').matchAll(/firms\/(l_[a-z0-9]{16})\.json/g),
  ].map((m) => m[1] as string);
  const cities = metros.flatMap((m) => m.principal_cities);
  const bad = [
    'radius=5&zip=60601',
    'zip=6060',
    'location=Austin,%20Texas',
    'lat=91&lng=0',
    'limit=0&zip=60601',
    'location=constructor,%20IL',
  ];
  const out: AutocannonRequest[] = [];
  for (let i = 0; i < n; i++) {
    const radius = pick([1, 2, 5, 10, 15, 25, 50]);
    const limit = 1 + Math.floor(random() * 25);
    const roll = random();
    if (i % 10 === 9) out.push({ method: 'GET', path: `/v1/attorneys?${pick(bad)}` });
    else if (roll < 0.5) {
      const m = pick(metros);
      const lat = m.center.lat + (random() - 0.5) * 0.9;
      const lng = m.center.lng + (random() - 0.5) * 1.1;
      out.push({
        method: 'GET',
        path: `/v1/attorneys?lat=${lat.toFixed(5)}&lng=${lng.toFixed(5)}&radius_miles=${radius}&limit=${limit}`,
      });
    } else if (roll < 0.62) out.push({ method: 'GET', path: `/v1/attorneys?zip=${pick(zips)}&radius_miles=${radius}` });
    else if (roll < 0.72)
      out.push({ method: 'GET', path: `/v1/attorneys?location=${encodeURIComponent(pick(cities))}&limit=${limit}` });
    else if (roll < 0.84) out.push({ method: 'GET', path: `/v1/firms/${pick(listings)}` });
    else if (roll < 0.88) out.push({ method: 'GET', path: '/v1/coverage' });
    else {
      const m = pick(metros);
      const args = {
        lat: Number(m.center.lat.toFixed(4)),
        lng: Number(m.center.lng.toFixed(4)),
        radius_miles: radius,
        limit,
      };
      out.push({
        method: 'POST',
        path: '/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'find_injury_attorneys', arguments: args },
        }),
      });
    }
  }
  return out;
}

/**
 * The site folder to serve: the one given, else site/ or var/test-site/ of the working folder (npm runs scripts in the
 * checkout); null when it holds no current.json.
 */
function siteToServe(given: string | undefined): string | null {
  const candidates = given !== undefined ? [resolve(given)] : [resolve('site'), resolve('var/test-site')];
  const found = candidates.find((dir) => existsSync(join(dir, 'current.json')));
  return found ?? null;
}

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const { values } = cli;
  const { seconds, connections, seed } = values;
  const site = siteToServe(values.site);
  if (site === null) {
    process.stderr.write(
      `soak: no published site (current.json) at ${values.site ?? 'site/ or var/test-site/'}. Run npm start once (it releases the sample into site/), or pass --site <folder> of a released site.\n`,
    );
    return EXIT.usage;
  }
  const requests = requestMix(site, 5000, seed);
  const server = await startServerChild(site);
  const { url, pid } = server;
  const rss = { start: rssMiB(pid), warm: NaN, peak: 0, end: NaN };
  process.stderr.write(
    `[soak] server ${url} (pid ${pid}), RSS ${rss.start.toFixed(0)} MiB; ${connections} connections for ${seconds} s over ${requests.length} distinct requests\n`,
  );
  let answered = 0;
  const began = Date.now();
  const sampler = setInterval(() => {
    const now = rssMiB(pid);
    rss.peak = Math.max(rss.peak, now);
    const elapsed = (Date.now() - began) / 1000;
    if (Number.isNaN(rss.warm) && elapsed >= Math.min(30, seconds / 4)) rss.warm = now;
    if (Math.round(elapsed) % 10 === 0)
      process.stderr.write(
        `[soak] ${elapsed.toFixed(0)}/${seconds} s: ${answered} answers, RSS ${now.toFixed(0)} MiB (peak ${rss.peak.toFixed(0)})\n`,
      );
  }, 1000);
  let result: AutocannonResult;
  try {
    result = await new Promise<AutocannonResult>((done, fail) => {
      const instance = autocannon({ url, connections, duration: seconds, timeout: 10, requests }, (err, res) =>
        err ? fail(err) : done(res),
      );
      instance.on('response', () => answered++);
    });
  } finally {
    clearInterval(sampler);
  }
  rss.end = rssMiB(pid);
  rss.peak = Math.max(rss.peak, rss.end);
  process.stderr.write(`[soak] load ended after ${((Date.now() - began) / 1000).toFixed(0)} s: ${answered} answers\n`);
  await server.stop();

  const statuses = Object.entries(result.statusCodeStats).sort(([a], [b]) => a.localeCompare(b));
  const unexpected = statuses.filter(([s]) => s !== '200' && s !== '400').reduce((n, [, v]) => n + v.count, 0);
  const errors = result.errors + unexpected;
  const lines = [
    `| soak | ${seconds} s, ${connections} connections, ${requests.length} distinct requests (seed ${seed}) |`,
    '|---|---|',
    `| requests | ${result.requests.total} (${result.requests.average.toFixed(0)}/s) |`,
    `| statuses | ${statuses.map(([s, v]) => `${s}: ${v.count}`).join(', ')} |`,
    `| errors | ${errors} (socket errors ${result.errors - result.timeouts}, timeouts ${result.timeouts}, unexpected statuses ${unexpected}) |`,
    `| latency | p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms |`,
    `| server stderr | ${server.stderr.lines} report lines${server.stderr.first.length > 0 ? `, first: ${server.stderr.first.map((l) => `\`${l.replace(/\|/g, '/')}\``).join('; ')}` : ''} |`,
    `| server RSS | start ${rss.start.toFixed(0)} MiB, after warm-up ${rss.warm.toFixed(0)} MiB, peak ${rss.peak.toFixed(0)} MiB, end ${rss.end.toFixed(0)} MiB |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stderr.write(`[soak] ${errors === 0 ? 'passed: 0 errors' : `FAILED: ${errors} errors`}\n`);
  return errors === 0 ? 0 : 1;
}

process.exitCode = await main();
