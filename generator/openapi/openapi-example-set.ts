/** The shape of the examples openapi.json shows: answers of the version's own data (see generator/openapi/openapi-examples.ts). */
import type { AttorneysResponseT, CoverageResponseT, FirmResponseT, ProblemT } from '../../shim/contract/schemas.ts';

/** Example values of the operations' parameters, and example bodies of their responses. */
export interface OpenApiExampleSet {
  /** One value per parameter name (query and path parameters alike). */
  parameters: Record<string, string | number>;
  /** The query string each search example answers. */
  queries: { covered: string; not_covered: string };
  attorneys: { covered: AttorneysResponseT; not_covered: AttorneysResponseT };
  firm: FirmResponseT;
  coverage: CoverageResponseT;
  changes: Record<string, unknown>;
  /** Problem bodies by response status; each an answer the service gives (or its fixed form, for 429, 500 and 503). */
  problems: Record<string, ProblemT>;
}
