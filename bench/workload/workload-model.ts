/**
 * The workload model of /v1/attorneys at the edge (pure): a population-weighted mix of distinct queries, the CloudFront
 * hit ratio it implies for a TTL, a request rate and a number of independent caches, and the cost per million searches
 * at stated list prices. Inputs and assumptions are documented in BENCHMARKS.md section 9 and docs/DEPLOY.md.
 */

/** One distinct cache key and its share of all searches. */
export interface KeyShare {
  share: number;
}

/** How searches are spread over forms, radii and limits (shares sum to 1 within each list). */
export interface QueryMix {
  /** Share of searches by a ZIP the person lives in, by a city name, and by a device location (unique, never repeats). */
  forms: { zip: number; city: number; point: number };
  /** How a ZIP is sent: `zip=` or `location=` (different cache keys: their 400s differ for unknown ZIPs). */
  zipParams: Array<{ name: string; share: number }>;
  /** How a city name is typed (the answer echoes it, so each spelling is its own key). */
  citySpellings: Array<{ name: string; share: number }>;
  radii: Array<{ miles: number; share: number }>;
  limits: Array<{ limit: number; share: number }>;
}

/** The mix the report assumes (section 9 says why). */
export const DEFAULT_MIX: QueryMix = {
  forms: { zip: 0.5, city: 0.35, point: 0.15 },
  zipParams: [
    { name: 'zip', share: 0.6 },
    { name: 'location', share: 0.4 },
  ],
  citySpellings: [
    { name: 'as listed ("Houston, TX")', share: 0.8 },
    { name: 'lower case', share: 0.15 },
    { name: 'upper case', share: 0.05 },
  ],
  radii: [
    { miles: 15, share: 0.7 },
    { miles: 10, share: 0.1 },
    { miles: 25, share: 0.1 },
    { miles: 5, share: 0.05 },
    { miles: 50, share: 0.05 },
  ],
  limits: [
    { limit: 10, share: 0.75 },
    { limit: 25, share: 0.15 },
    { limit: 5, share: 0.1 },
  ],
};

/**
 * Shares of every distinct cache key: each ZIP (weight ∝ the people it stands for) times its parameter names, each city
 * (weight ∝ population) times its spellings, each times the radius and limit mixes. Point searches are left out: every
 * one is its own key. The shares sum to 1 − forms.point.
 */
export function keyShares(
  zipWeights: readonly number[],
  cityWeights: readonly number[],
  mix: QueryMix = DEFAULT_MIX,
): Float64Array {
  const zipTotal = zipWeights.reduce((a, b) => a + b, 0);
  const cityTotal = cityWeights.reduce((a, b) => a + b, 0);
  const combos = mix.radii.flatMap((r) => mix.limits.map((l) => r.share * l.share));
  const out: number[] = [];
  for (const w of zipWeights)
    for (const p of mix.zipParams) for (const c of combos) out.push((mix.forms.zip * w * p.share * c) / zipTotal);
  for (const w of cityWeights)
    for (const s of mix.citySpellings) for (const c of combos) out.push((mix.forms.city * w * s.share * c) / cityTotal);
  return Float64Array.from(out.filter((x) => x > 0));
}

/** P(Poisson(mu) >= n). */
function poissonAtLeast(mu: number, n: number): number {
  if (n <= 0) return 1;
  let term = Math.exp(-mu);
  let below = term;
  for (let k = 1; k < n; k++) {
    term *= mu / k;
    below += term;
  }
  return Math.max(0, 1 - below);
}

/**
 * Expected misses in one publish period of `periodS` seconds for a key requested at `rate` per second (Poisson) at one
 * cache whose entries live `ttlS` seconds and are all invalidated at each publish. Each miss starts an entry; the n-th
 * miss comes at (n−1)·ttl plus the sum of n exponential waits, so it falls inside the period with probability
 * P(Poisson(rate·(period − (n−1)·ttl)) ≥ n). Exact, summed over n.
 */
export function expectedMisses(rate: number, ttlS: number, periodS: number): number {
  if (rate <= 0) return 0;
  let misses = 0;
  for (let n = 1; (n - 1) * ttlS < periodS; n++) {
    const p = poissonAtLeast(rate * (periodS - (n - 1) * ttlS), n);
    misses += p;
    if (p < 1e-12) break;
  }
  return misses;
}

/** One hit-ratio scenario. */
export interface Scenario {
  /** Searches per second across the whole distribution. */
  ratePerS: number;
  ttlS: number;
  /** Independent caches the searches spread over at random (1: one shared cache, as with Origin Shield). */
  caches: number;
}

/** Seconds between publishes (weekly): every publish invalidates /v1/attorneys*. */
export const PUBLISH_PERIOD_S = 7 * 86_400;

/** The share of searches answered from the edge cache in `s`, for key shares `shares` (point searches always miss). */
export function hitRatio(shares: Float64Array, s: Scenario, periodS = PUBLISH_PERIOD_S): number {
  const requests = s.ratePerS * periodS;
  let misses = 0;
  let covered = 0;
  for (const share of shares) {
    covered += share;
    misses += s.caches * expectedMisses((s.ratePerS * share) / s.caches, Math.min(s.ttlS, periodS), periodS);
  }
  const pointMisses = (1 - covered) * requests;
  return 1 - (misses + pointMisses) / requests;
}

/** AWS list prices (us-east-1, USD) the cost model uses; check them against the AWS pricing pages before quoting. */
export const PRICES = {
  asOf: 'AWS public pricing pages as last read for this model (mid-2025); the bench machine has no web access to recheck',
  cloudFrontPerMillionHttps: 1.0,
  cloudFrontPerGbOut: 0.085,
  cloudFrontFunctionPerMillion: 0.1,
  kvsReadPerMillion: 0.03,
  wafPerMillion: 0.6,
  lambdaPerMillion: 0.2,
  lambdaPerGbS: 0.0000133334,
  s3GetPer1000: 0.0004,
  logsIngestPerGb: 0.5,
} as const;

/** What one search costs the origin when it misses, and what every search sends and logs. */
export interface CostInputs {
  /** Edge hit ratio. */
  hitRatio: number;
  /** Mean bytes sent to the viewer per search (compressed body plus headers). */
  bytesOut: number;
  /** Lambda GB-seconds per miss (memory in GB times billed seconds). */
  lambdaGbS: number;
  /** S3 GETs per miss. */
  s3GetsPerMiss: number;
  /** Bytes of the edge log line per search, and of the function's log lines per miss (CloudWatch bills both). */
  edgeLogBytes: number;
  originLogBytes: number;
}

/** Cost lines per million searches, in USD. */
export function costPerMillion(c: CostInputs): Array<{ item: string; usd: number }> {
  const million = 1e6;
  const misses = million * (1 - c.hitRatio);
  const gb = (bytes: number): number => bytes / 1e9;
  return [
    { item: 'CloudFront HTTPS requests (every search)', usd: PRICES.cloudFrontPerMillionHttps },
    { item: 'CloudFront data out', usd: gb(million * c.bytesOut) * PRICES.cloudFrontPerGbOut },
    { item: 'CloudFront Function (every search)', usd: PRICES.cloudFrontFunctionPerMillion },
    { item: 'KeyValueStore reads (the salt, every search)', usd: PRICES.kvsReadPerMillion },
    { item: 'WAF requests (every search, hit or miss)', usd: PRICES.wafPerMillion },
    { item: 'Lambda requests (misses)', usd: (misses / million) * PRICES.lambdaPerMillion },
    { item: 'Lambda compute (misses)', usd: misses * c.lambdaGbS * PRICES.lambdaPerGbS },
    { item: 'S3 GETs (misses)', usd: ((misses * c.s3GetsPerMiss) / 1000) * PRICES.s3GetPer1000 },
    { item: 'CloudWatch Logs: edge lines (every search)', usd: gb(million * c.edgeLogBytes) * PRICES.logsIngestPerGb },
    { item: 'CloudWatch Logs: function lines (misses)', usd: gb(misses * c.originLogBytes) * PRICES.logsIngestPerGb },
  ];
}
