/**
 * The examples of a version's openapi.json, taken from that version's own data (standing removals already applied, so a
 * removed firm never appears): the real Service asks the version a few questions and the answers are trimmed to a
 * readable size (two results, one other office, three metros, one change of each kind, none made on request).
 * Generate calls it over the version it is writing, before the version is live. Deterministic for a given version.
 */
import { ApiError } from '../../shim/contract/errors.ts';
import type { OpenApiExampleSet } from './openapi-example-set.ts';
import { DEFAULT_PUBLIC_BASE_URL } from '../../shim/answer/openapi-info.ts';
import { problemTypeUri } from '../../shim/pages/problem-pages.ts';
import { parseQuery } from '../../shim/http/query.ts';
import type { AttorneysResponseT, ProblemT } from '../../shim/contract/schemas.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import type { Store } from '../../shim/store/types.ts';

/** The uncovered search shown (a ZIP outside every measured metro). */
export const NOT_COVERED_QUERY = 'zip=59001&limit=2';
/** Radii tried, smallest first, for the covered search of a principal city. */
const RADII = [5, 25, 50] as const;

/** A problem with its `type` on the document's base URL, as the service answers it. */
function absolute(problem: ProblemT): ProblemT {
  return { ...problem, type: problemTypeUri(DEFAULT_PUBLIC_BASE_URL, problem.code) };
}

async function problemOf(call: () => Promise<unknown>): Promise<ProblemT> {
  try {
    await call();
  } catch (err) {
    if (err instanceof ApiError) return absolute(err.toProblem());
    throw err;
  }
  throw new Error('the example call was expected to fail');
}

/**
 * The examples, from the version `store`'s pointer names. `cities` ("City, ST", e.g. each metro's first principal city)
 * are tried in order for the covered search: the first with an office within the smallest radius is shown.
 */
export async function collectExamples(store: Store, cities: readonly string[]): Promise<OpenApiExampleSet> {
  const service = createService(createSiteSource(store));
  const ctx = { publicBaseUrl: DEFAULT_PUBLIC_BASE_URL };
  let chosen: { query: string; city: string; radius: number; answer: AttorneysResponseT } | null = null;
  for (const radius of RADII) {
    for (const city of cities) {
      const query = `location=${encodeURIComponent(city).replaceAll('%2C', ',')}&radius_miles=${radius}&limit=2`;
      const answer = await service.findAttorneys(parseQuery(query), ctx);
      if (answer.results.length > 0) {
        chosen = { query, city, radius, answer };
        break;
      }
    }
    if (chosen !== null) break;
  }
  if (chosen === null)
    throw new Error(
      `no office within ${RADII.at(-1)} miles of ${cities.join('; ') || '(no city)'}: nothing to show in the OpenAPI examples`,
    );
  const { answer: covered } = chosen;
  const notCovered = await service.findAttorneys(parseQuery(NOT_COVERED_QUERY), ctx);
  const first = covered.results[0] as AttorneysResponseT['results'][number];
  const firm = await service.getFirm(first.listing_id, ctx);
  const coverage = await service.getCoverage(ctx);
  const changes = (await service.getChanges(ctx)) as unknown as Record<string, unknown>;
  // One entry of each list; a listing removed on request (a removal or a correction: `old` is null) is never shown.
  const shown = (k: string, v: unknown[]): unknown[] =>
    (k === 'removed' ? v.filter((e) => (e as { old: unknown }).old !== null) : v).slice(0, 1);
  const trimmed = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, Array.isArray(v) ? shown(k, v) : v]));
  return {
    parameters: {
      location: chosen.city,
      zip: covered.location.zip ?? first.zip ?? '60601',
      lat: covered.location.lat,
      lng: covered.location.lng,
      radius_miles: chosen.radius,
      limit: 2,
      practice_area: 'personal_injury',
      src: 'my-assistant',
      listing_id: first.listing_id,
      code: 'location_not_understood',
    },
    queries: { covered: chosen.query, not_covered: NOT_COVERED_QUERY },
    attorneys: { covered, not_covered: notCovered },
    firm: { ...firm, other_offices: firm.other_offices.slice(0, 1) },
    coverage: { ...coverage, metros: coverage.metros.slice(0, 3) },
    changes: trimmed,
    problems: {
      '400': await problemOf(() => service.findAttorneys(parseQuery('location=60601&radius_miles=99'), ctx)),
      '404': await problemOf(() => service.getFirm('l_aaaaaaaaaaaaaaaa', ctx)),
      '429': absolute(
        new ApiError(
          'rate_limited',
          'More than 600 API and tool calls in an hour came from your network address. Retry after 1800 seconds.',
        ).toProblem(),
      ),
      '500': absolute(
        new ApiError('internal_error', 'The service failed to answer this request. Please retry later.').toProblem(),
      ),
      '503': absolute(
        new ApiError(
          'service_unavailable',
          'The directory could not be read just now; retry after 5 seconds.',
        ).toProblem(),
      ),
    },
  };
}
