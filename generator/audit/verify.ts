/**
 * `audit verify`: check one published version (manifest, cell tree) and, given a live API, recompute queries from a
 * brute-force scan of the published records and compare them with the live answers (docs/AUDIT.md).
 */
import { AttorneysResponse, CoverageResponse } from '../../shim/contract/schemas.ts';
import { attribution } from '../../shim/contract/attribution.ts';
import {
  CoverageCells,
  CoverageDoc,
  keys,
  type CoverageCellsT,
  type StoredOfficeT,
} from '../../shim/format/site-format.ts';
import { compareAnswer } from './compare.ts';
import { getLive, jsonDifferences, LiveError } from './live.ts';
import { checkManifest, type ManifestCheck } from './manifest.ts';
import { mapPool } from '../write/pool.ts';
import { sampleQueries, type AuditQuery } from './queries.ts';
import { recomputeAnswer } from './recompute.ts';
import { compareTree, scanOffices } from '../site/scan.ts';
import { ApiError, StoreError } from '../../shim/contract/errors.ts';
import type { SiteReader } from '../../shim/search/reader.ts';
import { stateOfPoint } from '../../shim/places/resolve-point.ts';
import { openSite, type AuditSite, type AuditLocation } from '../site/site.ts';

/** What to verify. */
export interface VerifyOptions {
  site: AuditLocation;
  /** Version to read (default: the one current.json names). */
  version?: string;
  /** Base URL of the live API, e.g. http://127.0.0.1:8787; without it only the published site is checked. */
  url?: string;
  /** Queries given explicitly. */
  queries?: AuditQuery[];
  /** Seeded sampled queries added to `queries`. */
  sample?: number;
  seed?: number;
  /** Check the manifest (default true). */
  manifest?: boolean;
  /** Rebuild the cell tree from the records and compare it with the published one (default true). */
  rebuildTree?: boolean;
  /** Live requests in flight at once (default 4). */
  concurrency?: number;
  log?: (line: string) => void;
}

/** Outcome of one query; `outside` is a point the published boundary puts outside the US, refused live as it should be. */
export interface QueryCheck {
  query: string;
  status: 'match' | 'mismatch' | 'error' | 'outside';
  /** The point recomputed from, and whether it came from the query or the live answer's resolved location. */
  point: { lat: number; lng: number; from: 'query' | 'live' } | null;
  covered: boolean | null;
  firmsWithinRadius: number | null;
  results: number | null;
  differences: string[];
}

/** Everything verify found. */
export interface VerifyReport {
  site: string;
  version: string;
  week: string;
  generatedAt: string;
  scan: { objects: number; bytes: number; offices: number; problems: string[] } | null;
  manifest: ManifestCheck | null;
  live: { url: string; versionProblems: string[]; queries: QueryCheck[] } | null;
  /** Checks that could not run (site unreadable, API unreachable, rate limited). */
  errors: string[];
  timingsMs: Record<string, number>;
}

/** 0 every check passed, 1 a difference was found, 2 something could not be checked. */
export function verifyExitCode(r: VerifyReport): 0 | 1 | 2 {
  const mismatch =
    (r.scan?.problems.length ?? 0) > 0 ||
    (r.manifest?.problems.length ?? 0) > 0 ||
    (r.live !== null && (r.live.versionProblems.length > 0 || r.live.queries.some((q) => q.status === 'mismatch')));
  if (mismatch) return 1;
  if (r.errors.length > 0 || r.live?.queries.some((q) => q.status === 'error')) return 2;
  return 0;
}

/** Differences between the live GET /v1/coverage (its `version` first) and the site's coverage.json; throws LiveError when it cannot be read. */
async function liveVersionProblems(site: AuditSite, url: string, when: string): Promise<string[]> {
  const doc = await site.json(keys.coverage(site.version), CoverageDoc);
  if (doc === null)
    throw new StoreError(`${site.label}: version ${site.version} has no coverage.json`, keys.coverage(site.version));
  const reply = await getLive(url, '/v1/coverage', CoverageResponse);
  if (reply.status !== 200)
    throw new LiveError(`${when}: GET /v1/coverage could not be read: ${reply.problem ?? `HTTP ${reply.status}`}`);
  if (reply.body === null) return [`${when}: GET /v1/coverage: ${reply.problem ?? 'unreadable body'}`];
  const { schema_version: _sv, ...published } = doc;
  // A version published before coverage.json carried `attribution` is served with the current one (as shim/answer/shape.ts does).
  const diffs = jsonDifferences(
    { version: site.version, ...published, attribution: published.attribution ?? attribution() },
    reply.body,
  );
  if (diffs.length === 0) return [];
  return [
    `${when}: the live API does not serve version ${site.version} (week_of ${site.meta.week_of}, generated_at ${site.meta.generated_at}); ` +
      `it serves week_of ${reply.body.week_of}, generated_at ${reply.body.generated_at}; coverage differs at ${diffs.join('; ')}`,
  ];
}

/** The check of a query that got no answer to compare: an error, with why. */
function unanswered(query: string, differences: string[]): QueryCheck {
  return {
    query,
    status: 'error',
    point: null,
    covered: null,
    firmsWithinRadius: null,
    results: null,
    differences,
  };
}

/**
 * The audited version read as the service reads it, for the published boundary (gazetteer/boundary/ and the ZIP points
 * beside it): each object parsed once per run.
 */
function boundaryReader(site: AuditSite): SiteReader {
  const parsed = new Map<string, Promise<unknown>>();
  return {
    version: site.version,
    meta: site.meta,
    json<T>(key: string, schema: Parameters<AuditSite['json']>[1]): Promise<T | null> {
      let p = parsed.get(key);
      if (p === undefined) parsed.set(key, (p = site.json(key, schema)));
      return p as Promise<T | null>;
    },
  };
}

/**
 * Whether the published boundary puts a point in the US (the 50 states, DC and Puerto Rico), by the rule the service
 * applies; null when the version has no boundary or ZIP points to tell.
 */
async function inUs(reader: SiteReader, point: { lat: number; lng: number }): Promise<boolean | null> {
  try {
    const state = await stateOfPoint(reader, { ...point, input: `${point.lat},${point.lng}`, parameter: 'lat' });
    return state === null ? null : true;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'location_not_understood') return false;
    throw err;
  }
}

async function checkQuery(
  url: string,
  q: AuditQuery,
  offices: readonly StoredOfficeT[],
  officesById: ReadonlyMap<string, StoredOfficeT>,
  coverage: CoverageCellsT,
  boundary: SiteReader,
): Promise<QueryCheck> {
  const base = unanswered(q.query, []);
  let reply;
  try {
    reply = await getLive(url, `/v1/attorneys?${q.query}`, AttorneysResponse);
  } catch (err) {
    if (err instanceof LiveError) return { ...base, differences: [err.message] };
    throw err;
  }
  if (reply.status === 429)
    return { ...base, differences: [`rate limited by the live API (Retry-After ${reply.retryAfter ?? '?'} s)`] };
  // A sampled point abroad or at sea: the published boundary decides whether the live API had to refuse it.
  const us = q.point === null ? null : await inUs(boundary, q.point);
  if (reply.status === 400 && us === false)
    return reply.code === 'location_not_understood'
      ? { ...base, status: 'outside', point: { ...(q.point as { lat: number; lng: number }), from: 'query' } }
      : { ...base, status: 'mismatch', differences: [`a point outside the US was refused with ${reply.problem}`] };
  if (reply.status === 400 && us === true)
    return {
      ...base,
      status: 'mismatch',
      differences: [`the published boundary puts this point in the US, but the live API refused it: ${reply.problem}`],
    };
  if (reply.status !== 200)
    return { ...base, differences: [`the live API answered ${reply.problem ?? `HTTP ${reply.status}`}`] };
  const got = reply.body;
  if (got === null) return { ...base, status: 'mismatch', differences: [reply.problem ?? 'unreadable body'] };
  if (us === false)
    return {
      ...base,
      status: 'mismatch',
      differences: ['the published boundary puts this point outside the US, but the live API answered it'],
    };
  const differences: string[] = [];
  let point: QueryCheck['point'];
  if (q.point !== null) {
    point = { ...q.point, from: 'query' };
    if (got.location.lat !== q.point.lat || got.location.lng !== q.point.lng)
      differences.push(
        `location: sent ${q.point.lat},${q.point.lng}, the live answer used ${got.location.lat},${got.location.lng}`,
      );
  } else {
    point = { lat: got.location.lat, lng: got.location.lng, from: 'live' };
  }
  const expected = recomputeAnswer(offices, coverage, point.lat, point.lng, q.radiusMiles, q.limit);
  differences.push(
    ...compareAnswer(expected, got, {
      lat: point.lat,
      lng: point.lng,
      radiusMiles: q.radiusMiles,
      limit: q.limit,
      officesById,
    }),
  );
  return {
    query: q.query,
    status: differences.length === 0 ? 'match' : 'mismatch',
    point,
    covered: got.covered,
    firmsWithinRadius: got.firms_within_radius,
    results: got.results.length,
    differences,
  };
}

/** Run every requested check; StoreError and LiveError become `errors`, differences become problems. */
export async function verify(opts: VerifyOptions): Promise<VerifyReport> {
  const log = opts.log;
  const t = (): number => performance.now();
  const timingsMs: Record<string, number> = {};
  const site = await openSite(opts.site, opts.version);
  const report: VerifyReport = {
    site: site.label,
    version: site.version,
    week: site.meta.week,
    generatedAt: site.meta.generated_at,
    scan: null,
    manifest: null,
    live: null,
    errors: [],
    timingsMs,
  };
  try {
    if (opts.manifest ?? true) {
      const t0 = t();
      log?.(`verify: checking the manifest of ${site.version}`);
      report.manifest = await checkManifest(site, log === undefined ? {} : { log });
      timingsMs.manifest = Math.round(t() - t0);
    }
    const t1 = t();
    const scan = await scanOffices(site, log !== undefined ? { log } : {});
    const problems = [...scan.problems];
    if (opts.rebuildTree ?? true) problems.push(...compareTree(scan, site.version));
    report.scan = { objects: scan.objects, bytes: scan.bytes, offices: scan.offices.length, problems };
    timingsMs.scan = Math.round(t() - t1);

    const queries = [...(opts.queries ?? [])];
    if (opts.url !== undefined) {
      const coverage = await site.json(keys.coverageCells(site.version), CoverageCells);
      if (coverage === null)
        throw new StoreError(
          `${site.label}: version ${site.version} has no coverage-cells.json`,
          keys.coverageCells(site.version),
        );
      if (opts.sample !== undefined && opts.sample > 0)
        queries.push(...sampleQueries(coverage, opts.sample, opts.seed ?? 1));
      const t2 = t();
      const live = {
        url: opts.url,
        versionProblems: await liveVersionProblems(site, opts.url, 'before the queries'),
        queries: [] as QueryCheck[],
      };
      report.live = live;
      const officesById = new Map(scan.offices.map((o) => [o.listing_id, o]));
      const boundary = boundaryReader(site);
      let done = 0;
      let limited = false;
      live.queries = await mapPool(queries, opts.concurrency ?? 4, async (q) => {
        if (limited) return unanswered(q.query, ['not run: the live API was rate limiting']);
        const r = await checkQuery(opts.url as string, q, scan.offices, officesById, coverage, boundary);
        if (r.status === 'error' && r.differences[0]?.startsWith('rate limited') === true) limited = true;
        if (log !== undefined && (++done % 10 === 0 || done === queries.length))
          log(`verify: ${done}/${queries.length} queries compared`);
        return r;
      });
      // A publish between the two checks would mix versions: say so rather than report spurious differences.
      if (!limited) live.versionProblems.push(...(await liveVersionProblems(site, opts.url, 'after the queries')));
      timingsMs.queries = Math.round(t() - t2);
    }
  } catch (err) {
    if (err instanceof StoreError || err instanceof LiveError) report.errors.push(err.message);
    else throw err;
  }
  return report;
}

/** The report as readable text: a summary, then every problem and every mismatching query with its differences. */
export function formatVerifyReport(r: VerifyReport): string {
  const lines: string[] = [
    `audit verify: ${r.site}, version ${r.version} (week ${r.week}, generated_at ${r.generatedAt})`,
  ];
  if (r.manifest !== null) {
    lines.push(
      `manifest: ${r.manifest.objects} objects, ${(r.manifest.bytes / 1e6).toFixed(1)} MB hashed: ${r.manifest.problems.length === 0 ? 'OK' : `${r.manifest.problems.length} PROBLEM(S)`}`,
    );
    for (const p of r.manifest.problems.slice(0, 50)) lines.push(`  ${p}`);
    if (r.manifest.problems.length > 50) lines.push(`  ... ${r.manifest.problems.length - 50} more`);
  }
  if (r.scan !== null) {
    lines.push(
      `cell tree: ${r.scan.offices} offices from ${r.scan.objects} objects: ${r.scan.problems.length === 0 ? 'OK' : `${r.scan.problems.length} PROBLEM(S)`}`,
    );
    for (const p of r.scan.problems.slice(0, 50)) lines.push(`  ${p}`);
    if (r.scan.problems.length > 50) lines.push(`  ... ${r.scan.problems.length - 50} more`);
  }
  if (r.live !== null) {
    const q = r.live.queries;
    const n = (s: QueryCheck['status']): number => q.filter((x) => x.status === s).length;
    lines.push(
      `live ${r.live.url}: version ${r.live.versionProblems.length === 0 ? 'matches (GET /v1/coverage equals coverage.json)' : 'DIFFERS'}`,
    );
    for (const p of r.live.versionProblems) lines.push(`  ${p}`);
    lines.push(
      `queries: ${q.length} checked, ${n('match')} match, ${n('outside')} outside the US (refused, as the published boundary says), ${n('mismatch')} MISMATCH, ${n('error')} not checked`,
    );
    for (const x of q) {
      if (x.status === 'match' || x.status === 'outside') continue;
      lines.push(
        `${x.status === 'mismatch' ? 'MISMATCH' : 'NOT CHECKED'} /v1/attorneys?${x.query}${x.point?.from === 'live' ? ` (point ${x.point.lat},${x.point.lng} as resolved by the live API)` : ''}`,
      );
      for (const d of x.differences) lines.push(`  ${d}`);
    }
  }
  for (const e of r.errors) lines.push(`ERROR: ${e}`);
  const code = verifyExitCode(r);
  lines.push(
    code === 0
      ? 'RESULT: all checks passed'
      : code === 1
        ? 'RESULT: differences found (exit 1)'
        : 'RESULT: some checks could not run (exit 2)',
  );
  return `${lines.join('\n')}\n`;
}
