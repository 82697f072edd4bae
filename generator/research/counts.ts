/**
 * Research counts (README "Operating it"): searches per week by metro and by ZIP3, cells under the threshold suppressed
 * along with the complementary cells that keep them from being worked out from any combination of the total, the
 * metros and the ZIP3s, which lie in metros (suppress.ts).
 * On AWS, cached /v1/attorneys answers never reach the function, so REST searches are counted from the edge log (one line
 * per request, hit or miss) and resolved to a metro and ZIP3 through the function's lines for the same location. Pure.
 */
import { z } from 'zod';
import { parseSearch } from '../../shim/answer/search-request.ts';
import { suppress } from './suppress.ts';

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
  location: z.string().nullable().optional(),
});
export type LogLineT = z.infer<typeof LogLine>;

/** The fields of an edge request line (infra/edge/viewer-request.js) research reads. */
export const EdgeLine = z.object({
  log: z.literal('edge_request'),
  time: z.string(),
  endpoint: z.string(),
  location: z.string().nullable(),
  cache_key: z.string().nullable(),
});
export type EdgeLineT = z.infer<typeof EdgeLine>;

/** One published cell: a count, or suppressed. */
export type Cell = { key: string; searches: number } | { key: string; searches: null; suppressed: true };

/** The research document of one week. */
export interface ResearchCounts {
  schema_version: 2;
  generated: 'by npm run research; do not edit';
  week: string;
  /** First and last UTC day counted. */
  from: string;
  to: string;
  suppress_below: number;
  /** All searches of the week; null (suppressed) when fewer than suppress_below, or when it would expose a suppressed cell. */
  searches: number | null;
  by_metro: Cell[];
  by_zip3: Cell[];
  /** Where the REST searches were counted: the function's log alone, or the edge log (every request, hit or miss). */
  rest_counted_from: 'function' | 'edge';
  /**
   * Edge lines of the week that look like a valid search but whose location no function line answered, with a 200 or
   * a refusal (e.g. the miss fell outside the export): not counted.
   */
  edge_unresolved: number;
}

/** True for a line that is an answered search (REST or MCP): status 200 with a query id. */
export function isSearch(l: LogLineT): boolean {
  return (
    l.status === 200 &&
    l.query_id !== null &&
    (l.endpoint === '/v1/attorneys' || l.endpoint.endsWith('find_injury_attorneys'))
  );
}

function cells(view: ReadonlyArray<{ key: string; searches: number | null }>): Cell[] {
  return view.map(({ key, searches }) =>
    searches === null ? { key, searches: null, suppressed: true as const } : { key, searches },
  );
}

/** True for an edge line of a valid /v1/attorneys search (its cache key parses as one; invalid ones get a 400 at the function). */
function isEdgeSearch(e: EdgeLineT): boolean {
  if (e.endpoint !== '/v1/attorneys' || e.cache_key === null || e.location === null) return false;
  const args: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(e.cache_key)) {
    const had = args[name];
    args[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  // A valid search, as the shim's answer cache would key it (shim/http/answer-cache.ts answerKey).
  return parseSearch(args).ok;
}

/**
 * Count the week's searches among `lines` (function lines) and `edge` (edge lines) by metro and ZIP3. Without edge
 * lines every answered search of the function is counted (the local server sees every request). With them, REST
 * searches are the edge's valid /v1/attorneys lines, each resolved through a function 200 for the same location as
 * sent (metro and ZIP3 follow from the location alone), and the function's REST lines are not counted again (each of
 * them is a miss the edge already logged); MCP searches always come from the function (/mcp is never cached).
 */
export function countSearches(
  lines: Iterable<LogLineT>,
  week: string,
  from: string,
  to: string,
  below = SUPPRESS_BELOW,
  edge: Iterable<EdgeLineT> = [],
): ResearchCounts {
  // The table of (metro, ZIP3) pairs: both views and the total are its sums, which suppression must account for.
  const table = new Map<string, { metro: string; zip3: string; searches: number }>();
  const inWeek = (time: string): boolean => {
    const day = time.slice(0, 10);
    return day >= from && day <= to;
  };
  const edgeLines = [...edge].filter((e) => inWeek(e.time) && isEdgeSearch(e));
  const fromEdge = edgeLines.length > 0;
  // Resolved places by location as sent, from every function 200 (any day: a cached answer may have been made earlier).
  const resolved = new Map<string, { metro: string | null; zip3: string | null }>();
  let searches = 0;
  const add = (metro: string | null | undefined, zip3: string | null | undefined): void => {
    searches++;
    const m = metro ?? NO_METRO;
    const z3 = zip3 ?? NO_ZIP3;
    const key = `${m}\u0000${z3}`;
    const pair = table.get(key) ?? { metro: m, zip3: z3, searches: 0 };
    pair.searches++;
    table.set(key, pair);
  };
  // Locations the function refused (e.g. a city it does not know): their edge lines are failed searches, not unresolved.
  const refused = new Set<string>();
  for (const l of lines) {
    if (!isSearch(l)) {
      if (
        l.endpoint === '/v1/attorneys' &&
        l.status >= 400 &&
        l.status < 500 &&
        l.status !== 429 &&
        typeof l.location === 'string'
      )
        refused.add(l.location);
      continue;
    }
    const rest = l.endpoint === '/v1/attorneys';
    if (rest && l.location !== null && l.location !== undefined)
      resolved.set(l.location, { metro: l.metro ?? null, zip3: l.zip3 ?? null });
    if (!inWeek(l.time) || (rest && fromEdge)) continue;
    add(l.metro, l.zip3);
  }
  let unresolved = 0;
  for (const e of edgeLines) {
    const place = resolved.get(e.location ?? '');
    if (place !== undefined) add(place.metro, place.zip3);
    else if (!refused.has(e.location ?? '')) unresolved++;
  }
  const shown = suppress([...table.values()], below);
  return {
    schema_version: 2,
    generated: 'by npm run research; do not edit',
    week,
    from,
    to,
    suppress_below: below,
    // The total is itself a cell: a week with fewer searches than the threshold shows none of them, and a total that
    // would let a suppressed cell be worked out is withheld too (suppress.ts). `searches` counts them all.
    searches: searches === 0 ? null : shown.searches,
    by_metro: cells(shown.views[0] ?? []),
    by_zip3: cells(shown.views[1] ?? []),
    rest_counted_from: fromEdge ? 'edge' : 'function',
    edge_unresolved: unresolved,
  };
}
