/**
 * The workload model's hit ratio against an independent answer: a discrete-event simulation of Poisson searches over
 * cache entries with a TTL and a weekly invalidation. Also the key shares and the cost arithmetic.
 */
import { describe, expect, it } from 'vitest';
import {
  costPerMillion,
  DEFAULT_MIX,
  expectedMisses,
  hitRatio,
  keyShares,
  PRICES,
} from '../bench/workload/workload-model.ts';
import { rng } from './helpers/rng.ts';

/** Simulated hit ratio: Poisson arrivals, each to a key drawn from `shares` (or a unique key for the rest) and a random cache. */
function simulate(
  shares: number[],
  ratePerS: number,
  ttlS: number,
  periodS: number,
  caches: number,
  seed: number,
): number {
  const random = rng(seed);
  const cumulative: number[] = [];
  let sum = 0;
  for (const s of shares) cumulative.push((sum += s));
  const expiry = new Map<string, number>();
  let t = 0;
  let hits = 0;
  let requests = 0;
  for (;;) {
    t += -Math.log(1 - random()) / ratePerS;
    if (t >= periodS) break;
    requests++;
    const u = random();
    let lo = 0;
    let hi = cumulative.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= shares.length) continue; // a unique key: always a miss
    const key = `${Math.floor(random() * caches)}:${lo}`;
    const until = expiry.get(key);
    if (until !== undefined && until > t) hits++;
    else expiry.set(key, t + ttlS);
  }
  return hits / requests;
}

describe('hit ratio', () => {
  const zipf = (n: number, total: number): number[] => {
    const raw = Array.from({ length: n }, (_, i) => 1 / (i + 1));
    const s = raw.reduce((a, b) => a + b, 0);
    return raw.map((x) => (x / s) * total);
  };

  it('matches a simulation within 0.02 across TTLs, rates and cache counts', () => {
    const shares = zipf(2000, 0.85);
    const period = 7 * 86_400;
    for (const [rate, ttl, caches] of [
      [0.02, period, 1],
      [0.02, 86_400, 1],
      [0.2, 86_400, 4],
      [0.005, 3600, 1],
      [0.05, 6 * 3600, 8],
    ] as const) {
      const model = hitRatio(Float64Array.from(shares), { ratePerS: rate, ttlS: ttl, caches }, period);
      const sim = simulate(shares, rate, ttl, period, caches, 7 + caches);
      expect(Math.abs(model - sim), `rate ${rate} ttl ${ttl} caches ${caches}: model ${model} sim ${sim}`).toBeLessThan(
        0.02,
      );
    }
  });

  it('expected misses: one per period for a busy key kept all period, period/ttl for a busy key kept less', () => {
    expect(expectedMisses(100, 604_800, 604_800)).toBeCloseTo(1, 6);
    expect(expectedMisses(100, 86_400, 604_800)).toBeCloseTo(7, 1);
    expect(expectedMisses(1e-9, 86_400, 604_800)).toBeCloseTo(604_800e-9, 6);
  });

  it('more traffic or a longer TTL never lowers the hit ratio; unique point searches cap it', () => {
    const shares = keyShares([5, 3, 1], [10, 2], DEFAULT_MIX);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1 - DEFAULT_MIX.forms.point, 9);
    const h = (ratePerS: number, ttlS: number): number => hitRatio(shares, { ratePerS, ttlS, caches: 1 });
    expect(h(10, 86_400)).toBeGreaterThanOrEqual(h(1, 86_400));
    expect(h(1, 604_800)).toBeGreaterThanOrEqual(h(1, 86_400));
    expect(h(1000, 604_800)).toBeLessThanOrEqual(1 - DEFAULT_MIX.forms.point);
    expect(h(1000, 604_800)).toBeGreaterThan(1 - DEFAULT_MIX.forms.point - 0.001);
  });
});

describe('cost per million searches', () => {
  const inputs = { bytesOut: 3000, lambdaGbS: 0.015, s3GetsPerMiss: 1.6, edgeLogBytes: 400, originLogBytes: 600 };
  const total = (hitRatio: number): number => costPerMillion({ ...inputs, hitRatio }).reduce((a, l) => a + l.usd, 0);

  it('with no hits it is the uncached path plus the edge function, its salt read and its log', () => {
    const lines = new Map(costPerMillion({ ...inputs, hitRatio: 0 }).map((l) => [l.item, l.usd]));
    expect(lines.get('Lambda requests (misses)')).toBeCloseTo(PRICES.lambdaPerMillion, 9);
    expect(lines.get('Lambda compute (misses)')).toBeCloseTo(1e6 * 0.015 * PRICES.lambdaPerGbS, 9);
    expect(lines.get('S3 GETs (misses)')).toBeCloseTo(1.6e3 * PRICES.s3GetPer1000, 9);
    expect(lines.get('CloudFront data out')).toBeCloseTo(3 * PRICES.cloudFrontPerGbOut, 9);
  });

  it('falls with the hit ratio, down to what every search costs at the edge', () => {
    expect(total(0.5)).toBeLessThan(total(0));
    const edgeOnly =
      PRICES.cloudFrontPerMillionHttps +
      3 * PRICES.cloudFrontPerGbOut +
      PRICES.cloudFrontFunctionPerMillion +
      PRICES.kvsReadPerMillion +
      PRICES.wafPerMillion +
      0.4 * PRICES.logsIngestPerGb;
    expect(total(1)).toBeCloseTo(edgeOnly, 9);
  });
});
