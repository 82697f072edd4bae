/**
 * The query-aware join (shim/search/block-packs.ts packRuns with a PackFit, fitRuns): a round that would take its
 * request over 20 store requests joins more of its gaps between runs of one pack, smallest first, within 1 MiB less
 * the margin and the reserve; held to a hand-worked case and to a brute force over every set of gaps.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from './helpers/seeded.ts';
import {
  fitRuns,
  NARROW_RESERVE,
  PACK_GAP_BYTES,
  PACK_JOIN_BUDGET_BYTES,
  packRuns,
  QUERY_MARGIN_BYTES,
  QUERY_MAX_BYTES,
  QUERY_MAX_REQUESTS,
  roundReserve,
  WIDE_RESERVE,
  type PackFit,
  type PackRun,
  type PackSpan,
} from '../shim/search/block-packs.ts';

const KIB = 1024;

/** A span of `pack` from `start` KiB, `size` KiB long. */
function span(key: string, pack: string, start: number, size: number): [string, PackSpan] {
  return [key, { pack, start: start * KIB, end: (start + size) * KIB }];
}

/** The fit of a request that made `requestsSoFar` requests and read `bytesSoFar`, this round's other requests none. */
function fitOf(requestsSoFar: number, bytesSoFar = 0, reserve = { requests: 0, bytes: 0 }): PackFit {
  return {
    requestsSoFar,
    bytesSoFar,
    looseRequests: 0,
    reserveRequests: reserve.requests,
    reserveBytes: reserve.bytes,
  };
}

/** Each run as [pack, start, end] in KiB. */
function shape(runs: readonly PackRun[]): [string, number, number][] {
  return runs.map((r) => [r.pack, r.start / KIB, r.end / KIB]);
}

/** The requests a fit counts for `runs`: the request's so far, the round's loose ones, the runs and the reserve. */
function total(fit: PackFit, runs: readonly PackRun[]): number {
  return fit.requestsSoFar + fit.looseRequests + runs.length + fit.reserveRequests;
}

function bytesOf(runs: readonly PackRun[]): number {
  return runs.reduce((n, r) => n + r.end - r.start, 0);
}

/** The gaps between neighbouring runs of one pack, as [bytes, index of the later run]. */
function gapsOf(runs: readonly PackRun[]): [number, number][] {
  const gaps: [number, number][] = [];
  for (let i = 1; i < runs.length; i++)
    if (runs[i]!.pack === runs[i - 1]!.pack) gaps.push([runs[i]!.start - runs[i - 1]!.end, i]);
  return gaps;
}

describe('the query-aware join (packRuns with a fit)', () => {
  // Three runs of pack a, 30, 20 and (then) 40 KiB apart; two of pack b, 25 KiB apart. Each span 10 KiB; no join budget.
  const spans = [
    span('a1', 'a', 0, 10),
    span('a2', 'a', 40, 10),
    span('a3', 'a', 70, 10),
    span('a4', 'a', 120, 10),
    span('b1', 'b', 0, 10),
    span('b2', 'b', 35, 10),
  ];

  it('joins the smallest gaps of one pack first, only as far as 20 requests, on a hand-worked case', () => {
    expect(shape(packRuns(spans, PACK_GAP_BYTES, 0))).toEqual([
      ['a', 0, 10],
      ['a', 40, 50],
      ['a', 70, 80],
      ['a', 120, 130],
      ['b', 0, 10],
      ['b', 35, 45],
    ]);
    // 15 + 6 = 21: one join, the 20 KiB gap (a2 to a3).
    expect(shape(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(15)))).toEqual([
      ['a', 0, 10],
      ['a', 40, 80],
      ['a', 120, 130],
      ['b', 0, 10],
      ['b', 35, 45],
    ]);
    // 17 + 6 = 23: three joins, 20 then 25 (pack b) then 30 KiB; never across packs a and b.
    expect(shape(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(17)))).toEqual([
      ['a', 0, 80],
      ['a', 120, 130],
      ['b', 0, 45],
    ]);
    // 30 + 6: every gap of a pack joined, and no more (two packs, two requests).
    expect(shape(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(30)))).toEqual([
      ['a', 0, 130],
      ['b', 0, 45],
    ]);
    // The reserve and the round's loose requests count the same as requests so far: 12 + 2 + 6 + 1 = 21.
    const counted = { ...fitOf(12, 0, { requests: 1, bytes: 0 }), looseRequests: 2 };
    expect(shape(packRuns(spans, PACK_GAP_BYTES, 0, counted))).toEqual(
      shape(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(15))),
    );
    // Two gaps of one size: the earlier one is joined.
    const tied = [span('c1', 'c', 0, 10), span('c2', 'c', 40, 10), span('c3', 'c', 80, 10)];
    expect(shape(packRuns(tied, PACK_GAP_BYTES, 0, fitOf(18)))).toEqual([
      ['c', 0, 50],
      ['c', 80, 90],
    ]);
    // Within 20 already: exactly packRuns' runs.
    expect(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(14))).toEqual(packRuns(spans, PACK_GAP_BYTES, 0));
  });

  it('stops at the bytes: 1 MiB less the margin and the reserve', () => {
    // The runs are 60 KiB; the cap less them leaves room for the 20 KiB gap, not for the 25 KiB one after it.
    const cap = QUERY_MAX_BYTES - QUERY_MARGIN_BYTES - 128 * KIB;
    const bytesSoFar = cap - 60 * KIB - 24 * KIB;
    const fit = fitOf(17, bytesSoFar, { requests: 0, bytes: 128 * KIB });
    const runs = packRuns(spans, PACK_GAP_BYTES, 0, fit);
    expect(shape(runs)).toEqual([
      ['a', 0, 10],
      ['a', 40, 80],
      ['a', 120, 130],
      ['b', 0, 10],
      ['b', 35, 45],
    ]);
    expect(bytesSoFar + bytesOf(runs)).toBeLessThanOrEqual(cap);
    // Already past the cap: nothing joined, however many requests.
    expect(packRuns(spans, PACK_GAP_BYTES, 0, fitOf(40, QUERY_MAX_BYTES))).toEqual(packRuns(spans, PACK_GAP_BYTES, 0));
  });

  it('keeps the reserve by the search limit, and none in the last round', () => {
    expect(roundReserve({ last: false, limit: 10 })).toEqual({ requests: 3, bytes: 128 * KIB });
    expect(roundReserve({ last: false, limit: 1 })).toEqual(NARROW_RESERVE);
    expect(roundReserve({ last: false, limit: 11 })).toEqual({ requests: 6, bytes: 192 * KIB });
    expect(roundReserve({ last: false, limit: 25 })).toEqual(WIDE_RESERVE);
    expect(roundReserve({ last: true })).toEqual({ requests: 0, bytes: 0 });
  });

  it('reaches the fewest requests any join of a pack reaches within the bytes, and no fewer than 20 (brute force)', () => {
    const rand = seeded(17);
    let joinedAny = 0;
    let stoppedAtBytes = 0;
    for (let trial = 0; trial < 400; trial++) {
      const list: [string, PackSpan][] = [];
      for (let i = 0; i < 2 + rand(14); i++) {
        const start = rand(600_000);
        list.push([`k${i}`, { pack: `p${rand(3)}`, start, end: start + 1 + rand(40_000) }]);
      }
      const budget = [0, PACK_JOIN_BUDGET_BYTES][trial % 2]!;
      const base = packRuns(list, PACK_GAP_BYTES, budget);
      const fit: PackFit = {
        requestsSoFar: rand(22),
        bytesSoFar: rand(1_000_000),
        looseRequests: rand(4),
        reserveRequests: [0, 3, 6][rand(3)]!,
        reserveBytes: [0, 128 * KIB, 192 * KIB][rand(3)]!,
      };
      const runs = packRuns(list, PACK_GAP_BYTES, budget, fit);
      expect(fitRuns(base, fit)).toEqual(runs);
      const cap = QUERY_MAX_BYTES - QUERY_MARGIN_BYTES - fit.reserveBytes;

      // Every span in exactly one run, of its own pack; each run is neighbouring runs of packRuns' of one pack.
      for (const [key, s] of list) {
        const holding = runs.filter((r) => r.spans.some(([k]) => k === key));
        expect(holding).toHaveLength(1);
        expect(holding[0]!.pack).toBe(s.pack);
        expect(holding[0]!.start <= s.start && s.end <= holding[0]!.end).toBe(true);
      }
      let at = 0;
      for (const run of runs) {
        const parts: PackRun[] = [];
        while (
          at < base.length &&
          base[at]!.start >= run.start &&
          base[at]!.end <= run.end &&
          base[at]!.pack === run.pack
        )
          parts.push(base[at++]!);
        expect(parts.length).toBeGreaterThan(0);
        expect([parts[0]!.start, parts.at(-1)!.end]).toEqual([run.start, run.end]);
      }
      expect(at).toBe(base.length);

      const joined = base.length - runs.length;
      if (total(fit, base) <= QUERY_MAX_REQUESTS) {
        expect(runs).toEqual(base);
        continue;
      }
      // The gaps joined are the smallest (ties to the earlier gap): those left are no smaller.
      const gaps = gapsOf(base).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      const took = gaps.slice(0, joined);
      const left = gaps.slice(joined);
      for (const [, i] of took)
        expect(runs.some((r) => r.start < base[i]!.start && base[i - 1]!.end < r.end)).toBe(true);
      for (const [, i] of left) expect(runs.some((r) => r.start === base[i]!.start)).toBe(true);
      // Within the bytes whenever it joined; stopped once 20 were reached, or at the bytes.
      if (joined > 0) {
        joinedAny++;
        expect(fit.bytesSoFar + bytesOf(runs)).toBeLessThanOrEqual(cap);
        expect(total(fit, runs)).toBeGreaterThanOrEqual(QUERY_MAX_REQUESTS);
      }
      if (total(fit, runs) > QUERY_MAX_REQUESTS && left.length > 0) {
        stoppedAtBytes++;
        expect(fit.bytesSoFar + bytesOf(runs) + left[0]![0]).toBeGreaterThan(cap);
      }
      // Brute force: the fewest runs any set of gaps reaches within the cap (none when the runs alone exceed it).
      let fewest = base.length;
      for (let mask = 0; mask < 2 ** gaps.length; mask++) {
        let bytes = fit.bytesSoFar + bytesOf(base);
        let n = 0;
        gaps.forEach(([g], j) => {
          if ((mask >> j) & 1) {
            bytes += g;
            n++;
          }
        });
        if (bytes <= cap) fewest = Math.min(fewest, base.length - n);
      }
      const target = QUERY_MAX_REQUESTS - (total(fit, base) - base.length);
      expect(runs.length, `trial ${trial}`).toBe(Math.min(base.length, Math.max(fewest, target)));
    }
    // The cases join, and some stop at the bytes (the test is not vacuous).
    expect(joinedAny).toBeGreaterThan(50);
    expect(stoppedAtBytes).toBeGreaterThan(10);
  });
});
