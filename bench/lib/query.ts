/** Warm in-process query latency: service.findAttorneys over a warm cache, several targets measured side by side. */
import type { Service } from '../../shim/answer/service.ts';
import { jittered, pointArgs, type QueryPoint } from './points.ts';
import { quantile, spread, type Spread } from './stats.ts';

/** Something that answers findAttorneys, with a name for the report. */
export interface LatencyTarget {
  name: string;
  service: Service;
  /** Store reads so far (to show the timed phase ran from a warm cache); absent for targets without a store. */
  storeReads?: () => number;
  /** Store reads so far of an object read before (the cache let it go); absent when not tracked. */
  storeRereads?: () => number;
  /**
   * When set, every timed query asks about a new point within this many miles of the base point (the same sequence
   * for every target), so nothing memoised per exact point can answer it; otherwise the base points repeat.
   */
  jitterMiles?: number;
}

/** Latency of one target at one radius, over several runs. */
export interface LatencyResult {
  target: string;
  radiusMiles: number;
  /** Per-run p50 and p99 in milliseconds, summarised over runs. */
  p50: Spread;
  p99: Spread;
  /** The per-run p50s, in run order (for ratios paired by run). */
  p50Runs: number[];
  /** Timed queries per run (median). */
  queries: number;
  /** Store reads during the timed phases (0 means every timed query was answered from the cache). */
  storeReadsTimed: number | null;
  /** Of those, reads of an object read before (the cache could not keep it); null when not tracked. */
  storeRereadsTimed?: number | null;
  /** Firms within the radius, median over the points (a sense of the work). */
  firmsWithinRadius: number;
}

/** Options of measureLatency. */
export interface LatencyOptions {
  points: readonly QueryPoint[];
  radii: readonly number[];
  /** Repetitions of the whole measurement (targets interleaved in each). */
  runs: number;
  /** Timed passes over the points per target, radius and run (fewer when maxMsPerCell runs out). */
  passes: number;
  /** Time budget per target, radius and run, in ms; at least one full pass is always timed. */
  maxMsPerCell: number;
  onProgress?: (line: string) => void;
}

const CTX = { publicBaseUrl: 'http://127.0.0.1:8787' };

/**
 * For each run, radius and target (interleaved, so noise on a shared machine hits every target alike): one untimed
 * pass over the points to warm the cache, then timed passes. Reports per-query p50/p99 per run, summarised as median and range.
 */
export async function measureLatency(
  targets: readonly LatencyTarget[],
  opts: LatencyOptions,
): Promise<LatencyResult[]> {
  const perCell = new Map<
    string,
    { p50: number[]; p99: number[]; n: number[]; reads: number; rereads: number; firms: number[] }
  >();
  const cellKey = (t: string, r: number): string => `${t}\u0000${r}`;
  for (let run = 0; run < opts.runs; run++) {
    for (const radius of opts.radii) {
      for (const target of targets) {
        const cell = perCell.get(cellKey(target.name, radius)) ?? {
          p50: [],
          p99: [],
          n: [],
          reads: 0,
          rereads: 0,
          firms: [],
        };
        perCell.set(cellKey(target.name, radius), cell);
        for (const [i, p] of opts.points.entries()) {
          const out = await target.service.findAttorneys(pointArgs(p, radius), CTX);
          if (run === 0) cell.firms.push(out.firms_within_radius);
          // Distinct-point targets also warm the cell blocks around each base point, at points the timed phase never asks.
          if (target.jitterMiles !== undefined) {
            for (let k = 0; k < 3; k++)
              await target.service.findAttorneys(
                pointArgs(jittered(p, target.jitterMiles, 900_000_000 + i * 3 + k), radius),
                CTX,
              );
          }
        }
        const readsBefore = target.storeReads?.() ?? 0;
        const rereadsBefore = target.storeRereads?.() ?? 0;
        const times: number[] = [];
        const started = performance.now();
        let n = run * 1_000_000;
        for (let pass = 0; pass < opts.passes; pass++) {
          for (const p of opts.points) {
            const args = pointArgs(target.jitterMiles === undefined ? p : jittered(p, target.jitterMiles, n++), radius);
            const t0 = performance.now();
            await target.service.findAttorneys(args, CTX);
            times.push(performance.now() - t0);
          }
          if (performance.now() - started > opts.maxMsPerCell) break;
        }
        cell.reads += (target.storeReads?.() ?? 0) - readsBefore;
        cell.rereads += (target.storeRereads?.() ?? 0) - rereadsBefore;
        cell.p50.push(quantile(times, 0.5));
        cell.p99.push(quantile(times, 0.99));
        cell.n.push(times.length);
        opts.onProgress?.(
          `latency run ${run + 1}/${opts.runs} r=${radius} mi ${target.name}: p50 ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms (${times.length} queries)`,
        );
      }
    }
  }
  const results: LatencyResult[] = [];
  for (const radius of opts.radii) {
    for (const target of targets) {
      const cell = perCell.get(cellKey(target.name, radius));
      if (cell === undefined) continue;
      results.push({
        target: target.name,
        radiusMiles: radius,
        p50: spread(cell.p50),
        p99: spread(cell.p99),
        p50Runs: cell.p50,
        queries: quantile(cell.n, 0.5),
        storeReadsTimed: target.storeReads ? cell.reads : null,
        storeRereadsTimed: target.storeRereads ? cell.rereads : null,
        firmsWithinRadius: quantile(cell.firms, 0.5),
      });
    }
  }
  return results;
}

/** Ratio a/b of the p50s of two targets at each radius, computed per run (paired: both saw the same noise), then summarised. */
export function ratioOfP50(results: readonly LatencyResult[], a: string, b: string): Map<number, Spread> {
  const out = new Map<number, Spread>();
  for (const ra of results.filter((r) => r.target === a)) {
    const rb = results.find((r) => r.target === b && r.radiusMiles === ra.radiusMiles);
    if (rb === undefined) continue;
    out.set(ra.radiusMiles, spread(ra.p50Runs.map((x, i) => x / (rb.p50Runs[i] ?? Number.NaN))));
  }
  return out;
}
