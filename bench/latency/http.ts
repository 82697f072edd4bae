/** HTTP throughput on loopback: the real server, the same server answering a precomputed body (ceiling), and the naive baseline. */
import { quantile, spread, type Spread } from '../lib/stats.ts';
import { scatterWithin, startServers, takeTurns, type LoadOptions, type LoadRequest } from './turns.ts';

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
export type HttpOptions = LoadOptions;

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
  const child = await startServers(opts.site, ['shim', 'static', 'naive'], { radii: opts.radii, tag: 'http-server' });
  try {
    const { urls, paths } = child.first;
    const targets = [
      { name: 'shim' as const, url: urls.shim ?? '', distinct: false },
      { name: 'static' as const, url: urls.static ?? '', distinct: false },
      { name: 'naive' as const, url: urls.naive ?? '', distinct: false },
      { name: 'shim, distinct points' as const, url: urls.shim ?? '', distinct: true },
    ];
    const scatter = scatterWithin(opts.jitterMiles);
    const pathsAt = (radius: number, distinct = false): LoadRequest[] =>
      paths
        .filter((p) => new URLSearchParams(p.slice(p.indexOf('?'))).get('radius_miles') === String(radius))
        .map((path) => ({ method: 'GET', path, ...(distinct ? { setupRequest: scatter } : {}) }));

    const cells = await takeTurns(
      opts.radii.flatMap((radius) =>
        targets.map((t) => ({ key: `${t.name} ${radius}`, url: t.url, requests: pathsAt(radius, t.distinct) })),
      ),
      { ...opts, label: 'http' },
    );
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
      paths: pathsAt(opts.radii[0] ?? 15).length,
    };
  } finally {
    await child.stop();
  }
}
