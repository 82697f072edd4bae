/**
 * Section 12 of `npm run bench` (`--only pipeline`): the request pipeline against a bare node:http server sending the
 * same bytes, side by side in one run:
 *   (a) the miss path: `/v1/attorneys` with every request a new point (15 mi, limit 10), through the real server with
 *       its answer cache on (every answer a miss), against bare node:http answering one such body;
 *   (b) `/v1/coverage`, a static document, against bare node:http answering its bytes.
 * Beside them, a Hono app on @hono/node-server answering the same bytes: what the framework alone costs a request.
 * The servers run in the servers child (servers.ts), autocannon here; the targets take turns in every run. Judged on
 * the server process's CPU time per answer (steadier on a shared machine than throughput, reported beside it).
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spread, type Spread } from '../lib/stats.ts';
import { startServers, takeTurns, type LoadRequest } from './turns.ts';

const run = promisify(execFile);

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

/** The six targets, in the order each run takes them. */
export const PIPELINE_TARGETS = [
  '(a) miss path: bare node:http',
  '(a) miss path: service',
  '(a) miss path: Hono, same bytes',
  '(b) /v1/coverage: bare node:http',
  '(b) /v1/coverage: service',
  '(b) /v1/coverage: Hono, same bytes',
] as const;
/** One of PIPELINE_TARGETS. */
export type PipelineTarget = (typeof PIPELINE_TARGETS)[number];

/** One target over the runs; the ratios are paired per run with its part's bare server (1 for bare itself). */
export interface PipelineRow {
  target: PipelineTarget;
  rps: Spread;
  /** Throughput over bare's. */
  rpsRatio: Spread;
  /** Server CPU time per answer, µs. */
  cpuUs: Spread;
  /** Bare's CPU per answer over the target's. */
  cpuRatio: Spread;
  failures: number;
}

/** The section's measurement. */
export interface PipelineReport {
  rows: PipelineRow[];
  connections: number;
  durationSec: number;
  runs: number;
  loadStart: number;
  loadEnd: number;
  /** The project modules one miss passes (bench/latency/miss-modules.ts); null when the count failed. */
  missModules: string[] | null;
}

/** Options of measurePipeline. */
export interface PipelineOptions {
  site: string;
  runs: number;
  durationSec: number;
  connections: number;
  onProgress?: (line: string) => void;
}

/** The project modules one miss passes, counted in a fresh process by miss-modules.ts. */
async function countMissModules(site: string): Promise<string[]> {
  const script = fileURLToPath(new URL('miss-modules.ts', import.meta.url));
  const { stdout } = await run(process.execPath, [script, '--site', site], { maxBuffer: 1 << 20 });
  const { modules, status } = JSON.parse(stdout) as { modules: string[]; status: number };
  if (status !== 200) throw new Error(`the counted miss answered ${status}`);
  return modules;
}

/** Run the comparison and return its figures. */
export async function measurePipeline(opts: PipelineOptions): Promise<PipelineReport> {
  const base = BASES[0] ?? { lat: 0, lng: 0 };
  const child = await startServers(opts.site, ['shim', 'bare', 'hono'], {
    paths: [missPath(base.lat, base.lng), '/v1/coverage'],
    tag: 'pipeline',
  });
  const loadStart = loadavg()[0] ?? 0;
  try {
    const { urls } = child.first;
    let n = 0;
    // Every request a new point: up to ~1 mile off a base point, never the same twice (5 decimals).
    const scatter = (req: { method: string; path: string }): { method: string; path: string } => {
      n++;
      const b = BASES[n % BASES.length] ?? { lat: 0, lng: 0 };
      return {
        ...req,
        path: missPath(b.lat + ((n * 0.0000731) % 0.03) - 0.015, b.lng + ((n * 0.0001379) % 0.03) - 0.015),
      };
    };
    const requests = (t: PipelineTarget): LoadRequest[] =>
      t.startsWith('(a)')
        ? [{ method: 'GET', path: missPath(base.lat, base.lng), setupRequest: scatter }]
        : [{ method: 'GET', path: '/v1/coverage' }];
    const urlOf = (t: PipelineTarget): string =>
      (t.endsWith('bare node:http') ? urls.bare : t.endsWith('same bytes') ? urls.hono : urls.shim) ?? '';
    const raw = await takeTurns(
      PIPELINE_TARGETS.map((t) => ({ key: t, url: urlOf(t), requests: requests(t) })),
      { ...opts, cpuUrl: urls.bare ?? '', label: 'pipeline' },
    );
    const rows: PipelineRow[] = [];
    for (const t of PIPELINE_TARGETS) {
      const c = raw.get(t);
      const bare = raw.get(t.startsWith('(a)') ? PIPELINE_TARGETS[0] : PIPELINE_TARGETS[3]);
      if (c === undefined || bare === undefined) continue;
      rows.push({
        target: t,
        rps: spread(c.rps),
        rpsRatio: spread(c.rps.map((v, i) => v / (bare.rps[i] ?? Number.NaN))),
        cpuUs: spread(c.cpu),
        cpuRatio: spread(c.cpu.map((v, i) => (bare.cpu[i] ?? Number.NaN) / v)),
        failures: c.failures,
      });
    }
    const missModules = await countMissModules(opts.site).catch((err: unknown) => {
      opts.onProgress?.(`  miss modules not counted: ${(err as Error).message}`);
      return null;
    });
    return {
      rows,
      missModules,
      connections: opts.connections,
      durationSec: opts.durationSec,
      runs: opts.runs,
      loadStart,
      loadEnd: loadavg()[0] ?? 0,
    };
  } finally {
    await child.stop();
  }
}
