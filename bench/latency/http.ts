/** HTTP throughput on loopback: the real server, the same server answering a precomputed body (ceiling), and the naive baseline. */
import { createRequire } from 'node:module';
import { startJsonChild } from '../lib/child.ts';
import { jittered } from '../lib/points.ts';
import { quantile, spread, type Spread } from '../lib/stats.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;
interface AutocannonRequest {
  method: string;
  path: string;
  /** Called before each send; may return a changed request. */
  setupRequest?: (req: { method: string; path: string }) => { method: string; path: string };
}

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One target at one radius over several runs. */
export interface HttpResult {
  target: 'shim' | 'static' | 'naive' | 'shim, distinct points';
  radiusMiles: number;
  /** Requests per second. */
  rps: Spread;
  rpsRuns: number[];
  /** Latency under load, in ms (autocannon's p50/p99 of the run, median over runs). */
  p50: Spread;
  p99: Spread;
  /** Response bytes per request (mean). */
  bytesPerRequest: number;
  /** Non-2xx answers and socket errors over all runs (must be 0 for a valid run). */
  failures: number;
}

/** Options of measureHttp. */
export interface HttpOptions {
  site: string;
  radii: readonly number[];
  runs: number;
  durationSec: number;
  connections: number;
  /** Scatter of the distinct-point target, in miles. */
  jitterMiles: number;
  onProgress?: (line: string) => void;
}

/** The whole HTTP comparison; ratios are per run, shim/static and shim/naive. */
export interface HttpReport {
  results: HttpResult[];
  shimOverStatic: Map<number, Spread>;
  shimOverNaive: Map<number, Spread>;
  distinctOverStatic: Map<number, Spread>;
  /** Distinct-point requests are scattered within this many miles of the base points. */
  jitterMiles: number;
  connections: number;
  durationSec: number;
  paths: number;
}

/** Run the comparison: a server child process, autocannon here; in each run the three targets take turns. */
export async function measureHttp(opts: HttpOptions): Promise<HttpReport> {
  const child = await startJsonChild<{ shim: string; naive: string; static: string; paths: string[] }>(
    'bench/latency/http-server.ts',
    ['--site', opts.site, '--radii', opts.radii.join(',')],
    {
      tag: 'http-server',
    },
  );
  try {
    const { shim, naive, static: fixed, paths } = child.first;
    const targets = [
      { name: 'shim' as const, url: shim, prefix: '/v1/attorneys', distinct: false },
      { name: 'static' as const, url: fixed, prefix: '/v1/attorneys', distinct: false },
      { name: 'naive' as const, url: naive, prefix: '/v1/attorneys', distinct: false },
      { name: 'shim, distinct points' as const, url: shim, prefix: '/v1/attorneys', distinct: true },
    ];
    let n = 0;
    // Each request of the distinct target asks about a new point near its base point (nothing per-point memoised helps).
    const scatter = (req: { method: string; path: string }): { method: string; path: string } => {
      const q = new URLSearchParams(req.path.slice(req.path.indexOf('?')));
      const p = jittered({ lat: Number(q.get('lat')), lng: Number(q.get('lng')) }, opts.jitterMiles, n++);
      q.set('lat', String(p.lat));
      q.set('lng', String(p.lng));
      return { ...req, path: `${req.path.slice(0, req.path.indexOf('?'))}?${q.toString()}` };
    };
    const pathsAt = (radius: number, prefix: string, distinct = false): AutocannonRequest[] =>
      paths
        .filter((p) => new URLSearchParams(p.slice(p.indexOf('?'))).get('radius_miles') === String(radius))
        .map((p) => ({
          method: 'GET',
          path: prefix + p.slice(p.indexOf('?')),
          ...(distinct ? { setupRequest: scatter } : {}),
        }));

    // Warm-up (untimed): JIT, caches, keep-alive sockets.
    for (const t of targets)
      for (const r of opts.radii)
        await autocannon({
          url: t.url,
          connections: opts.connections,
          duration: 1,
          requests: pathsAt(r, t.prefix, t.distinct),
        });

    const cells = new Map<string, { rps: number[]; p50: number[]; p99: number[]; bytes: number[]; failures: number }>();
    for (let run = 0; run < opts.runs; run++) {
      for (const radius of opts.radii) {
        for (const t of targets) {
          const r = await autocannon({
            url: t.url,
            connections: opts.connections,
            duration: opts.durationSec,
            requests: pathsAt(radius, t.prefix, t.distinct),
          });
          const key = `${t.name} ${radius}`;
          const cell = cells.get(key) ?? { rps: [], p50: [], p99: [], bytes: [], failures: 0 };
          cells.set(key, cell);
          const rps = r.requests.total / r.duration;
          cell.rps.push(rps);
          cell.p50.push(r.latency.p50);
          cell.p99.push(r.latency.p99);
          cell.bytes.push(r.throughput.average / Math.max(1, r.requests.average));
          cell.failures += r.non2xx + r.errors + r.timeouts;
          opts.onProgress?.(
            `http run ${run + 1}/${opts.runs} r=${radius} mi ${t.name}: ${rps.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx + r.errors + r.timeouts > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
          );
        }
      }
    }
    const results: HttpResult[] = [];
    const ratio = (a: string, b: string): Map<number, Spread> => {
      const out = new Map<number, Spread>();
      for (const radius of opts.radii) {
        const x = cells.get(`${a} ${radius}`);
        const y = cells.get(`${b} ${radius}`);
        if (x && y) out.set(radius, spread(x.rps.map((v, i) => v / (y.rps[i] ?? Number.NaN))));
      }
      return out;
    };
    for (const radius of opts.radii) {
      for (const t of targets) {
        const c = cells.get(`${t.name} ${radius}`);
        if (c === undefined) continue;
        results.push({
          target: t.name,
          radiusMiles: radius,
          rps: spread(c.rps),
          rpsRuns: c.rps,
          p50: spread(c.p50),
          p99: spread(c.p99),
          bytesPerRequest: quantile(c.bytes, 0.5),
          failures: c.failures,
        });
      }
    }
    return {
      results,
      shimOverStatic: ratio('shim', 'static'),
      shimOverNaive: ratio('shim', 'naive'),
      distinctOverStatic: ratio('shim, distinct points', 'static'),
      jitterMiles: opts.jitterMiles,
      connections: opts.connections,
      durationSec: opts.durationSec,
      paths: pathsAt(opts.radii[0] ?? 15, '').length,
    };
  } finally {
    await child.stop();
  }
}
