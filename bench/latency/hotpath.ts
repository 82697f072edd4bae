/**
 * Hot path on loopback, side by side in one run: `/v1/attorneys` from the real server with its answer cache (repeated
 * queries: answer-cache hits), the same server without it, a bare node:http server sending the same bytes, and the cached
 * server asked a new point every request (every answer a miss); the search alone timed in-process beside them.
 */
import { spread, type Spread } from '../lib/stats.ts';
import { scatterWithin, startServers, takeTurns, type LoadOptions, type LoadRequest } from './turns.ts';

/** The four targets, in the order each run takes them. */
export const HOTPATH_TARGETS = [
  'bare node:http',
  'shim, answer cache',
  'shim, no answer cache',
  'shim, distinct points',
] as const;
/** One of HOTPATH_TARGETS. */
export type HotpathTarget = (typeof HOTPATH_TARGETS)[number];

/** One target at one radius over the runs. */
export interface HotpathCell {
  target: HotpathTarget;
  radiusMiles: number;
  rps: Spread;
  p50: Spread;
  p99: Spread;
  /** Server time per answer implied by the throughput beyond the bare server's, in µs (median over runs, paired). */
  overheadUs: Spread | null;
  /** CPU time of the server process per answer, µs (user + system over the run / requests). */
  cpuUs: Spread;
  failures: number;
}

/** The hot-path measurement. */
export interface HotpathReport {
  cells: HotpathCell[];
  /** Per radius: throughput over the bare server's, paired per run. */
  ratios: { radiusMiles: number; cached: Spread; uncached: Spread; distinct: Spread }[];
  /** Per radius: the bare server's CPU time per answer over the target's, paired per run (throughput share if the server alone were the limit). */
  cpuRatios: { radiusMiles: number; cached: Spread; uncached: Spread; distinct: Spread }[];
  /** Per radius: the search alone (service.findAttorneys, warm, in-process), µs per call. */
  searchUs: Record<string, number>;
  connections: number;
  durationSec: number;
  runs: number;
  paths: number;
  jitterMiles: number;
}

/** Options of measureHotpath. */
export type HotpathOptions = LoadOptions;

/** Run the comparison: the servers in a child process, autocannon here, the targets taking turns in every run. */
export async function measureHotpath(opts: HotpathOptions): Promise<HotpathReport> {
  const child = await startServers(opts.site, ['shim', 'uncached', 'bare'], {
    radii: opts.radii,
    searchTiming: true,
    tag: 'hotpath-server',
  });
  try {
    const { urls, paths, searchUs } = child.first;
    const urlOf: Record<HotpathTarget, string> = {
      'bare node:http': urls.bare ?? '',
      'shim, answer cache': urls.shim ?? '',
      'shim, no answer cache': urls.uncached ?? '',
      'shim, distinct points': urls.shim ?? '',
    };
    const scatter = scatterWithin(opts.jitterMiles);
    const requests = (target: HotpathTarget, radius: number): LoadRequest[] =>
      paths
        .filter((p) => new URLSearchParams(p.slice(p.indexOf('?'))).get('radius_miles') === String(radius))
        .map((path) => ({
          method: 'GET',
          path,
          ...(target === 'shim, distinct points' ? { setupRequest: scatter } : {}),
        }));

    // The warm-up also fills the answer cache with the repeated queries.
    const raw = await takeTurns(
      opts.radii.flatMap((radius) =>
        HOTPATH_TARGETS.map((t) => ({ key: `${t} ${radius}`, url: urlOf[t], requests: requests(t, radius) })),
      ),
      { ...opts, cpuUrl: urls.bare ?? '', label: 'hotpath' },
    );
    const cells: HotpathCell[] = [];
    const ratios: HotpathReport['ratios'] = [];
    const cpuRatios: HotpathReport['cpuRatios'] = [];
    for (const radius of opts.radii) {
      const base = raw.get(`bare node:http ${radius}`);
      const paired = (t: HotpathTarget, f: (x: number, b: number) => number): Spread | null => {
        const c = raw.get(`${t} ${radius}`);
        return c && base ? spread(c.rps.map((v, i) => f(v, base.rps[i] ?? Number.NaN))) : null;
      };
      for (const t of HOTPATH_TARGETS) {
        const c = raw.get(`${t} ${radius}`);
        if (c === undefined) continue;
        const overheadUs = t === 'bare node:http' ? null : paired(t, (v, b) => 1e6 / v - 1e6 / b);
        cells.push({
          target: t,
          radiusMiles: radius,
          rps: spread(c.rps),
          p50: spread(c.p50),
          p99: spread(c.p99),
          overheadUs,
          cpuUs: spread(c.cpu),
          failures: c.failures,
        });
      }
      const cpuRatio = (t: HotpathTarget): Spread => {
        const c = raw.get(`${t} ${radius}`);
        return c && base ? spread(c.cpu.map((v, i) => (base.cpu[i] ?? Number.NaN) / v)) : spread([Number.NaN]);
      };
      cpuRatios.push({
        radiusMiles: radius,
        cached: cpuRatio('shim, answer cache'),
        uncached: cpuRatio('shim, no answer cache'),
        distinct: cpuRatio('shim, distinct points'),
      });
      const ratio = (t: HotpathTarget): Spread => paired(t, (v, b) => v / b) ?? spread([Number.NaN]);
      ratios.push({
        radiusMiles: radius,
        cached: ratio('shim, answer cache'),
        uncached: ratio('shim, no answer cache'),
        distinct: ratio('shim, distinct points'),
      });
    }
    return {
      cells,
      ratios,
      cpuRatios,
      searchUs,
      connections: opts.connections,
      durationSec: opts.durationSec,
      runs: opts.runs,
      paths: requests('bare node:http', opts.radii[0] ?? 15).length,
      jitterMiles: opts.jitterMiles,
    };
  } finally {
    await child.stop();
  }
}
