/** Research counts (README "Operating it"): searches per week by metro and by ZIP3, cells under the threshold suppressed. Pure. */
import { z } from 'zod';

/** Cells with fewer searches than this are shown as suppressed. */
export const SUPPRESS_BELOW = 10;
/** Row key for searches outside every measured metro, and for searches without a resolved ZIP. */
export const NO_METRO = '(no measured metro)';
export const NO_ZIP3 = '(no ZIP)';

/** The fields of a request log line research reads (local JSON lines and the Lambda's CloudWatch lines alike). */
export const LogLine = z.object({
  time: z.string(),
  endpoint: z.string(),
  status: z.number(),
  query_id: z.string().nullable(),
  metro: z.string().nullable().optional(),
  zip3: z.string().nullable().optional(),
});
export type LogLineT = z.infer<typeof LogLine>;

/** One published cell: a count, or suppressed. */
export type Cell = { key: string; searches: number } | { key: string; searches: null; suppressed: true };

/** The research document of one week. */
export interface ResearchCounts {
  schema_version: 1;
  generated: 'by npm run research; do not edit';
  week: string;
  /** First and last UTC day counted. */
  from: string;
  to: string;
  suppress_below: number;
  /** All searches of the week; null (suppressed) when fewer than suppress_below. */
  searches: number | null;
  by_metro: Cell[];
  by_zip3: Cell[];
}

/** True for a line that is an answered search (REST or MCP): status 200 with a query id. */
export function isSearch(l: LogLineT): boolean {
  return l.status === 200 && l.query_id !== null && (l.endpoint === '/v1/attorneys' || l.endpoint.endsWith('find_injury_attorneys'));
}

function cells(counts: ReadonlyMap<string, number>, below: number): Cell[] {
  return [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, n]) => (n < below ? { key, searches: null, suppressed: true as const } : { key, searches: n }));
}

/** Count the week's searches among `lines` (already limited to the week's days) by metro and ZIP3. */
export function countSearches(lines: Iterable<LogLineT>, week: string, from: string, to: string, below = SUPPRESS_BELOW): ResearchCounts {
  const byMetro = new Map<string, number>();
  const byZip3 = new Map<string, number>();
  let searches = 0;
  for (const l of lines) {
    const day = l.time.slice(0, 10);
    if (day < from || day > to || !isSearch(l)) continue;
    searches++;
    const m = l.metro ?? NO_METRO;
    const z3 = l.zip3 ?? NO_ZIP3;
    byMetro.set(m, (byMetro.get(m) ?? 0) + 1);
    byZip3.set(z3, (byZip3.get(z3) ?? 0) + 1);
  }
  return {
    schema_version: 1,
    generated: 'by npm run research; do not edit',
    week,
    from,
    to,
    suppress_below: below,
    // The total is itself a cell: a week with fewer searches than the threshold shows none of them.
    searches: searches < below ? null : searches,
    by_metro: cells(byMetro, below),
    by_zip3: cells(byZip3, below),
  };
}
