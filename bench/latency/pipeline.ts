/**
 * The request pipeline against a bare node:http server sending the same bytes, side by side in one run
 * (`npm run bench -- --only pipeline [--site DIR] [--runs N] [--duration S] [--connections N]`):
 *   (a) the miss path: `/v1/attorneys` with every request a new point (15 mi, limit 10), through the real server with
 *       its answer cache on (every answer a miss), against bare node:http answering one such body;
 *   (b) `/v1/coverage`, a static document, against bare node:http answering its bytes.
 * Beside them, a Hono app on @hono/node-server answering the same bytes: what the framework alone costs a request,
 * the figure that decides whether the pipeline may be built on it.
 * The servers run in a child process (this file with --serve), autocannon here; the targets take turns in every run.
 * Beside throughput it reports the server process's CPU time per answer (steadier on a shared machine). Self-contained:
 * it needs only a generated site folder (default bench/out/site-sample).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../shim/cli-run.ts';
import { EXIT } from '../../shim/core/cli-args.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The options of `npm run bench -- --only pipeline`, and of this file run as the server child (`--serve`). */
const SPEC = {
  name: 'bench pipeline',
  usage: 'npm run bench -- --only pipeline [options]',
  description: 'The request pipeline against a bare node:http server sending the same bytes, side by side in one run.',
  options: {
    only: {
      type: 'enum',
      values: ['pipeline'],
      description: 'the section (set by npm run bench)',
      default: 'pipeline',
    },
    site: {
      type: 'string',
      arg: 'dir',
      description: 'generated site folder',
      default: join(REPO, 'bench', 'out', 'site-sample'),
    },
    runs: { type: 'integer', min: 1, description: 'runs, each target in turn', default: 3 },
    duration: { type: 'integer', min: 1, description: 'seconds of load per target per run', default: 5 },
    connections: { type: 'integer', min: 1, description: 'concurrent connections', default: 10 },
    serve: { type: 'boolean', description: 'run as the server child (internal)' },
  },
  exits: { [EXIT.ok]: 'measured' },
} as const;

const CPU_PATH = '/__cpu';
const RADIUS = 15;
const LIMIT = 10;
/** Base points: the dense metros' centres (New York, Los Angeles, Chicago); each request is jittered off one. */
const BASES = [
  { lat: 40.7128, lng: -74.006 },
  { lat: 34.0522, lng: -118.2437 },
  { lat: 41.8781, lng: -87.6298 },
];

const missPath = (lat: number, lng: number): string =>
  `/v1/attorneys?lat=${lat.toFixed(5)}&lng=${lng.toFixed(5)}&radius_miles=${RADIUS}&limit=${LIMIT}`;

/** The child: the real server (default answer cache) and a bare node:http server; one JSON line when ready. */
async function serve(site: string): Promise<void> {
  const { loadConfig } = await import('../../shim/config.ts');
  const { startServer } = await import('../../shim/server.ts');
  const logDir = mkdtempSync(join(tmpdir(), 'iad-bench-pipeline-'));
  const shim = await startServer(
    loadConfig({ PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_HOUR: '0', SITE_DIR: site, LOG_DIR: logDir }),
  );
  const bodyOf = async (path: string): Promise<Buffer> => {
    const res = await fetch(shim.url + path);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };
  const base = BASES[0] ?? { lat: 0, lng: 0 };
  const attorneys = await bodyOf(missPath(base.lat, base.lng));
  const coverage = await bodyOf('/v1/coverage');
  const bare = createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    const body =
      url === CPU_PATH
        ? Buffer.from(JSON.stringify(process.cpuUsage()))
        : url.startsWith('/v1/attorneys?')
          ? attorneys
          : url === '/v1/coverage'
            ? coverage
            : null;
    if (body === null) {
      res.writeHead(404, { 'content-length': '0' });
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.byteLength),
    });
    res.end(body);
  });
  await new Promise<void>((done) => bare.listen(0, '127.0.0.1', () => done()));
  const { Hono } = await import('hono');
  const { serve: serveHono } = await import('@hono/node-server');
  const hono = new Hono();
  const json = { 'content-type': 'application/json; charset=utf-8' };
  hono.get('/v1/attorneys', (c) => c.body(new Uint8Array(attorneys), 200, json));
  hono.get('/v1/coverage', (c) => c.body(new Uint8Array(coverage), 200, json));
  const honoPort = await new Promise<number>((done) => {
    serveHono({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, (info) => done(info.port));
  });
  process.stdout.write(
    `${JSON.stringify({ shim: shim.url, bare: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`, hono: `http://127.0.0.1:${honoPort}` })}\n`,
  );
  const stop = (): void => {
    bare.closeAllConnections();
    void Promise.all([shim.close(500), new Promise<void>((done) => bare.close(() => done()))]).finally(() => {
      rmSync(logDir, { recursive: true, force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

interface AutocannonResult {
  requests: { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
interface Req {
  method: string;
  path: string;
  setupRequest?: (req: { method: string; path: string }) => { method: string; path: string };
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: Req[];
}) => Promise<AutocannonResult>;

const TARGETS = [
  '(a) miss path: bare node:http',
  '(a) miss path: service',
  '(a) miss path: Hono, same bytes',
  '(b) /v1/coverage: bare node:http',
  '(b) /v1/coverage: service',
  '(b) /v1/coverage: Hono, same bytes',
] as const;
type Target = (typeof TARGETS)[number];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? Number.NaN) + (s[m] ?? Number.NaN)) / 2;
};
const fmt = (xs: number[], digits = 0): string => {
  const f = (x: number): string =>
    x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return xs.length === 1 ? f(xs[0] ?? Number.NaN) : `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
};

/** Run the comparison and return the report as Markdown (also printed on stdout). */
export async function main(argv: string[]): Promise<string> {
  const parsed = runCli(SPEC, argv);
  if ('exit' in parsed) return '';
  const { values } = parsed;
  const site = resolve(values.site);
  if (values.serve === true) {
    await serve(site);
    return '';
  }
  const { runs, duration, connections } = values;
  const progress = (line: string): void => void process.stderr.write(`[pipeline] ${line}\n`);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', '--site', site], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls = await new Promise<{ shim: string; bare: string; hono: string }>((done, fail) => {
    let buf = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(JSON.parse(buf.slice(0, nl)) as { shim: string; bare: string; hono: string });
    });
    child.once('exit', (code) => fail(new Error(`server child exited with ${code}`)));
  });
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  let n = 0;
  // Every request a new point: up to ~2 miles off a base point, never the same twice (5 decimals).
  const scatter = (req: { method: string; path: string }): { method: string; path: string } => {
    n++;
    const b = BASES[n % BASES.length] ?? { lat: 0, lng: 0 };
    return {
      ...req,
      path: missPath(b.lat + ((n * 0.0000731) % 0.03) - 0.015, b.lng + ((n * 0.0001379) % 0.03) - 0.015),
    };
  };
  const requests = (t: Target): Req[] =>
    t.startsWith('(a)')
      ? [{ method: 'GET', path: '/v1/attorneys?lat=0&lng=0', setupRequest: scatter }]
      : [{ method: 'GET', path: '/v1/coverage' }];
  const urlOf = (t: Target): string =>
    t.endsWith('bare node:http') ? urls.bare : t.endsWith('same bytes') ? urls.hono : urls.shim;
  const cpuNow = async (): Promise<number> => {
    const u = (await (await fetch(`${urls.bare}${CPU_PATH}`)).json()) as { user: number; system: number };
    return u.user + u.system;
  };
  const load0 = loadavg()[0] ?? 0;
  progress(`warm-up; load ${load0.toFixed(1)}`);
  for (const t of TARGETS) await autocannon({ url: urlOf(t), connections, duration: 1, requests: requests(t) });
  const raw = new Map<Target, { rps: number[]; cpu: number[]; failures: number }>();
  for (let run = 0; run < runs; run++) {
    for (const t of TARGETS) {
      const cpu0 = await cpuNow();
      const r = await autocannon({ url: urlOf(t), connections, duration, requests: requests(t) });
      const cpuUs = ((await cpuNow()) - cpu0) / Math.max(1, r.requests.total);
      const cell = raw.get(t) ?? { rps: [], cpu: [], failures: 0 };
      raw.set(t, cell);
      cell.rps.push(r.requests.total / r.duration);
      cell.cpu.push(cpuUs);
      cell.failures += r.non2xx + r.errors + r.timeouts;
      progress(
        `run ${run + 1}/${runs} ${t}: ${(r.requests.total / r.duration).toFixed(0)} answers/s, ${cpuUs.toFixed(0)} µs CPU/answer`,
      );
    }
  }
  child.kill('SIGTERM');
  const load1 = loadavg()[0] ?? 0;
  const lines = [
    `autocannon, ${connections} connections, ${duration} s per target and run, ${runs} runs, the targets taking turns in every run; ${cpus().length} cores, node ${process.version}, load ${load0.toFixed(1)} at start, ${load1.toFixed(1)} at end.`,
    '',
    '| Target | Answers/s | Ratio to bare (throughput) | Server CPU per answer | Ratio to bare (CPU) | Failures |',
    '|---|---|---|---|---|---|',
  ];
  for (const t of TARGETS) {
    const c = raw.get(t);
    const bare = raw.get(t.startsWith('(a)') ? TARGETS[0] : TARGETS[3]);
    if (c === undefined || bare === undefined) continue;
    const ratio = c.rps.map((v, i) => v / (bare.rps[i] ?? Number.NaN));
    const cpuRatio = c.cpu.map((v, i) => (bare.cpu[i] ?? Number.NaN) / v);
    lines.push(`| ${t} | ${fmt(c.rps)} | ${fmt(ratio, 2)} | ${fmt(c.cpu)} µs | ${fmt(cpuRatio, 2)} | ${c.failures} |`);
  }
  const report = lines.join('\n');
  process.stdout.write(`${report}\n`);
  return report;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
