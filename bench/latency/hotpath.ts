/**
 * Hot path on loopback, side by side in one run: `/v1/attorneys` from the real server with its answer cache (repeated
 * queries: the fast path), the same server without it, a bare node:http server sending the same bytes, and the cached
 * server asked a new point every request (every answer a miss); the search alone timed in-process beside them.
 */
import { createRequire } from 'node:module';
import { startJsonChild } from '../lib/child.ts';
import { jittered } from '../lib/points.ts';
import { spread, type Spread } from '../lib/stats.ts';

interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
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
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

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
export interface HotpathOptions {
  site: string;
  radii: readonly number[];
  runs: number;
  durationSec: number;
  connections: number;
  jitterMiles: number;
  onProgress?: (line: string) => void;
}

/** Run the comparison: the servers in a child process, autocannon here, the targets taking turns in every run. */
export async function measureHotpath(opts: HotpathOptions): Promise<HotpathReport> {
  const child = await startJsonChild<{
    cached: string;
    uncached: string;
    bare: string;
    paths: string[];
    searchUs: Record<string, number>;
  }>('bench/latency/hotpath-server.ts', ['--site', opts.site, '--radii', opts.radii.join(',')], {
    tag: 'hotpath-server',
  });
  try {
    const { cached, uncached, bare, paths, searchUs } = child.first;
    const urls: Record<HotpathTarget, string> = {
      'bare node:http': bare,
      'shim, answer cache': cached,
      'shim, no answer cache': uncached,
      'shim, distinct points': cached,
    };
    let n = 0;
    const scatter = (req: { method: string; path: string }): { method: string; path: string } => {
      const q = new URLSearchParams(req.path.slice(req.path.indexOf('?')));
      const p = jittered({ lat: Number(q.get('lat')), lng: Number(q.get('lng')) }, opts.jitterMiles, n++);
      q.set('lat', String(p.lat));
      q.set('lng', String(p.lng));
      return { ...req, path: `/v1/attorneys?${q.toString()}` };
    };
    const requests = (target: HotpathTarget, radius: number): Req[] =>
      paths
        .filter((p) => new URLSearchParams(p.slice(p.indexOf('?'))).get('radius_miles') === String(radius))
        .map((path) => ({
          method: 'GET',
          path,
          ...(target === 'shim, distinct points' ? { setupRequest: scatter } : {}),
        }));

    // Untimed warm-up: JIT, keep-alive sockets, and the answer cache filled with the repeated queries.
    for (const t of HOTPATH_TARGETS)
      for (const r of opts.radii)
        await autocannon({ url: urls[t], connections: opts.connections, duration: 1, requests: requests(t, r) });

    const cpuNow = async (): Promise<number> => {
      const u = (await (await fetch(`${bare}/__cpu`)).json()) as { user: number; system: number };
      return u.user + u.system;
    };
    const raw = new Map<string, { rps: number[]; p50: number[]; p99: number[]; cpu: number[]; failures: number }>();
    for (let run = 0; run < opts.runs; run++) {
      for (const radius of opts.radii) {
        for (const t of HOTPATH_TARGETS) {
          const cpu0 = await cpuNow();
          const r = await autocannon({
            url: urls[t],
            connections: opts.connections,
            duration: opts.durationSec,
            requests: requests(t, radius),
          });
          const cpuUs = ((await cpuNow()) - cpu0) / Math.max(1, r.requests.total);
          const cell = raw.get(`${t} ${radius}`) ?? { rps: [], p50: [], p99: [], cpu: [], failures: 0 };
          raw.set(`${t} ${radius}`, cell);
          const rps = r.requests.total / r.duration;
          const failures = r.non2xx + r.errors + r.timeouts;
          cell.rps.push(rps);
          cell.p50.push(r.latency.p50);
          cell.p99.push(r.latency.p99);
          cell.cpu.push(cpuUs);
          cell.failures += failures;
          opts.onProgress?.(
            `hotpath run ${run + 1}/${opts.runs} r=${radius} mi ${t}: ${rps.toFixed(0)} req/s, p50 ${r.latency.p50} ms, server CPU ${cpuUs.toFixed(0)} µs/answer${failures > 0 ? `, ${failures} failures` : ''}`,
          );
        }
      }
    }
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
