/**
 * Section 9: the workload model measured on this repository's own parts. Locations are drawn by population over the
 * gazetteer sources the generator uses (Census ZCTA points for ZIPs, GeoNames places for cities and population);
 * answer sizes come from the real service on the sample site, the edge log line from the real CloudFront Function
 * (run under the cloudfront-js-2.0 rules); the hit ratio and cost come from bench/workload/workload-model.ts.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { readPlaces, readZctas, type PlaceRow } from '../../generator/model/gazetteer-sources.ts';
import { viewerRequestCode } from '../../infra/edge-function.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { loadCloudFrontFunction, viewerRequest } from '../lib/cloudfront-runtime.ts';
import { seededRandom } from '../../generator/audit/queries.ts';
import {
  costPerMillion,
  DEFAULT_MIX,
  hitRatio,
  keyShares,
  PRICES,
  PUBLISH_PERIOD_S,
  type QueryMix,
} from './workload-model.ts';

/** Searches per second the hit ratio is reported for. */
export const RATES = [1, 10, 100] as const;
/** TTLs: a day, and a week (until the next weekly publish, which is what the answers' s-maxage gives). */
export const TTLS = [
  { label: '1 day', seconds: 86_400 },
  { label: '1 week (until the next publish)', seconds: PUBLISH_PERIOD_S },
] as const;
/** Independent caches: one (Origin Shield, or every search of a place reaching the same regional cache) and 8 at random. */
export const CACHES = [1, 8] as const;
/** Assumed Lambda GB-seconds per miss (512 MB, about 30 ms billed; docs/DEPLOY.md), S3 GETs per miss, bytes logged per miss. */
export const MISS_COSTS = { lambdaGbS: 0.5 * 0.03, s3GetsPerMiss: 1.6, originLogBytes: 600 } as const;
/** Response headers per answer, bytes (CORS, security, version, cache headers), added to the body sent. */
export const HEADER_BYTES = 600;
/** CloudWatch Logs bills 26 bytes per event beside the message. */
const EVENT_OVERHEAD = 26;
const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** One row of the hit-ratio table. */
export interface HitRow {
  ratePerS: number;
  ttl: string;
  caches: number;
  hitRatio: number;
}

/** What section 9 reports. */
export interface WorkloadReport {
  mix: QueryMix;
  sources: { zctas: number; places: number; keys: number; top100Share: number; top10000Share: number };
  hits: HitRow[];
  sizes: Array<{ limit: number; answers: number; brotli: number; gzip: number; raw: number }>;
  bytesOut: number;
  edgeLogBytes: number;
  cost: Array<{ label: string; hitRatio: number; lines: Array<{ item: string; usd: number }>; total: number }>;
  prices: typeof PRICES;
  ms: number;
}

/** Each ZCTA's weight: the population of its nearest GeoNames place, split evenly over the ZCTAs nearest to that place. */
export function zipWeights(
  zctas: ReadonlyArray<{ zip: string; lat: number; lng: number }>,
  places: readonly PlaceRow[],
): { weights: number[]; nearest: PlaceRow[] } {
  const grid = new Map<string, PlaceRow[]>();
  const cell = (lat: number, lng: number): string => `${Math.floor(lat)}:${Math.floor(lng)}`;
  for (const p of places) {
    const key = cell(p.lat, p.lng);
    const list = grid.get(key);
    if (list) list.push(p);
    else grid.set(key, [p]);
  }
  const nearest: PlaceRow[] = [];
  for (const z of zctas) {
    let best: PlaceRow | null = null;
    let bestD = Infinity;
    for (let ring = 0; ring <= 10 && best === null; ring++) {
      // Search one ring wider than the first hit, so a closer place just over a cell edge is not missed.
      for (let r = ring; r <= ring + 1; r++) {
        for (let dy = -r; dy <= r; dy++) {
          for (let dx = -r; dx <= r; dx++) {
            for (const p of grid.get(`${Math.floor(z.lat) + dy}:${Math.floor(z.lng) + dx}`) ?? []) {
              const d = (p.lat - z.lat) ** 2 + ((p.lng - z.lng) * Math.cos((z.lat * Math.PI) / 180)) ** 2;
              if (d < bestD) {
                bestD = d;
                best = p;
              }
            }
          }
        }
        if (best === null) break;
      }
    }
    nearest.push(best ?? (places[0] as PlaceRow));
  }
  const count = new Map<number, number>();
  for (const p of nearest) count.set(p.id, (count.get(p.id) ?? 0) + 1);
  return { weights: nearest.map((p) => p.population / (count.get(p.id) ?? 1)), nearest };
}

/** Run section 9 against the sample site in `siteDir`. */
export async function measureWorkload(siteDir: string, onProgress: (line: string) => void): Promise<WorkloadReport> {
  const started = performance.now();
  const mix = DEFAULT_MIX;
  const zctas = readZctas();
  const places = readPlaces().filter((p) => p.country === 'US' && p.population > 0);
  onProgress(
    `  ${zctas.length} ZCTAs, ${places.length} populated places; weighting ZIPs by their nearest place's population`,
  );
  const { weights } = zipWeights(zctas, places);
  const shares = keyShares(
    weights,
    places.map((p) => p.population),
    mix,
  );
  const sorted = Float64Array.from(shares).sort().reverse();
  const top = (n: number): number => sorted.subarray(0, n).reduce((a, b) => a + b, 0);

  const hits: HitRow[] = [];
  for (const ttl of TTLS) {
    for (const caches of CACHES) {
      for (const ratePerS of RATES) {
        const h = hitRatio(shares, { ratePerS, ttlS: ttl.seconds, caches });
        hits.push({ ratePerS, ttl: ttl.label, caches, hitRatio: h });
        onProgress(`  ${ratePerS}/s, TTL ${ttl.label}, ${caches} cache(s): hit ratio ${(100 * h).toFixed(1)}%`);
      }
    }
  }

  // Answer sizes: draw ZIPs by weight until each limit has answers that found firms (the sample covers a few metros).
  const service = createService(createSiteSource(new FolderStore(siteDir)));
  const random = seededRandom(15);
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w));
  const drawZip = (): string => {
    const u = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return zctas[lo]?.zip ?? '10001';
  };
  const sizes: WorkloadReport['sizes'] = [];
  for (const { limit } of mix.limits) {
    const found: Array<{ raw: number; br: number; gz: number }> = [];
    for (let tries = 0; tries < 20_000 && found.length < 40; tries++) {
      const body = await service
        .findAttorneys({ zip: drawZip(), limit: String(limit) }, { publicBaseUrl: 'https://directory.example.org' })
        .catch(() => null);
      if (body === null || body.results.length === 0) continue;
      const bytes = Buffer.from(JSON.stringify(body));
      found.push({ raw: bytes.length, br: brotliCompressSync(bytes).length, gz: gzipSync(bytes).length });
    }
    const mean = (f: (x: { raw: number; br: number; gz: number }) => number): number =>
      found.length === 0 ? 0 : found.reduce((a, x) => a + f(x), 0) / found.length;
    sizes.push({
      limit,
      answers: found.length,
      raw: mean((x) => x.raw),
      brotli: mean((x) => x.br),
      gzip: mean((x) => x.gz),
    });
    onProgress(`  limit ${limit}: ${found.length} answers with firms, mean ${Math.round(mean((x) => x.br))} B brotli`);
  }
  const bytesOut =
    HEADER_BYTES + mix.limits.reduce((a, l) => a + l.share * (sizes.find((s) => s.limit === l.limit)?.brotli ?? 0), 0);

  // The edge log line, from the real function on drawn queries.
  const salt = new Map([[`salt-${new Date().toISOString().slice(0, 10)}`, 'ab'.repeat(32)]]);
  const fn = loadCloudFrontFunction(viewerRequestCode('kvs'), 'kvs', salt);
  for (let i = 0; i < 200; i++) {
    const query =
      i % 3 === 0
        ? `location=${encodeURIComponent(`${places[i]?.name ?? 'Houston'}, ${places[i]?.adminCode ?? 'TX'}`)}&src=my-app`
        : `zip=${drawZip()}&radius_miles=25`;
    await fn.handler(viewerRequest('/v1/attorneys', query, { ip: '198.51.100.23', userAgent: USER_AGENT }));
  }
  const edgeLogBytes = EVENT_OVERHEAD + fn.logs.reduce((a, l) => a + Buffer.byteLength(l), 0) / fn.logs.length;

  const costOf = (label: string, h: number): WorkloadReport['cost'][number] => {
    const lines = costPerMillion({ hitRatio: h, bytesOut, edgeLogBytes, ...MISS_COSTS });
    return { label, hitRatio: h, lines, total: lines.reduce((a, l) => a + l.usd, 0) };
  };
  const at = (rate: number, caches: number, ttl: string): number =>
    hits.find((r) => r.ratePerS === rate && r.caches === caches && r.ttl === ttl)?.hitRatio ?? 0;
  const week = TTLS[1].label;
  const day = TTLS[0].label;
  const cost = [
    costOf('nothing cached (every search reaches the function)', 0),
    costOf(`10/s, TTL ${day}, 8 caches`, at(10, 8, day)),
    costOf(`10/s, TTL ${week}, 8 caches`, at(10, 8, week)),
    costOf(`10/s, TTL ${week}, 1 cache`, at(10, 1, week)),
    costOf(`100/s, TTL ${week}, 1 cache`, at(100, 1, week)),
  ];
  return {
    mix,
    sources: {
      zctas: zctas.length,
      places: places.length,
      keys: shares.length,
      top100Share: top(100),
      top10000Share: top(10_000),
    },
    hits,
    sizes,
    bytesOut,
    edgeLogBytes,
    cost,
    prices: PRICES,
    ms: performance.now() - started,
  };
}
