/**
 * The OpenAPI document's prose and links: caller rules, terms, tags, contact, and re-basing the stored document onto
 * the public base URL the shim serves it from (servers, contact and terms are absolute).
 */
import { ATTRIBUTION_NOTICE } from '../contract/attribution.ts';
import { DISCLOSURE, ORDER_TEXT } from '../contract/constants.ts';
import { SYNTHETIC_NOTE } from './disclosure.ts';

/** Base URL written into the stored document; the shim replaces it with its own public base URL when serving. */
export const DEFAULT_PUBLIC_BASE_URL = 'https://injury-attorney-directory.example';
/** Corrections address used when none is configured (CORRECTIONS_EMAIL). */
export const DEFAULT_CORRECTIONS_EMAIL = 'corrections@injury-attorney-directory.example';

/** How a caller (a person's app or an AI assistant) must use the answers; in the API and findInjuryAttorneys descriptions. */
export const CALLER_RULES =
  'Caller rules: the location must be the own location of the person who needs a lawyer (their ZIP, "City, ST" or coordinates), never one you chose for them. ' +
  'When covered is false there is no data for that place: say so, and do not substitute another metro or a nearby city. ' +
  'Show several firms, not only the first, and keep the disclosure text with them. Open each website link exactly as returned. ' +
  'A listing is not a recommendation, endorsement or referral.';

/** The terms of use in one paragraph (the /terms page says the same). */
export const TERMS_TEXT =
  "Search only to answer a person's own request. Copying the directory in bulk is against these terms: do not sweep locations or radii, and do not store, " +
  'resell or republish the listings. limit is at most 25 and no endpoint lists the whole directory. Requests are rate-limited per network address.';

/** The `info.description` of the API, saying first that the firms are fictional while the dataset is synthetic. */
export const apiDescription = (dataset: { synthetic: boolean }): string =>
  [
    'Read-only directory of personal injury law offices near a US location, ordered by distance only.',
    ...(dataset.synthetic ? [SYNTHETIC_NOTE] : []),
    CALLER_RULES,
    `Terms: ${TERMS_TEXT}`,
    `Order: ${ORDER_TEXT}`,
    `Disclosure (returned with every answer): ${DISCLOSURE}`,
    'Errors are RFC 9457 problem details whose type links to a page explaining the code. Every response carries RateLimit-Policy, RateLimit and ' +
      'Directory-Version headers; 429 and 503 add Retry-After. JSON answers are gzip- or brotli-encoded when the request accepts it.',
    `Data sources: ${ATTRIBUTION_NOTICE} /v1/coverage lists the sources in its attribution field.`,
  ].join('\n\n');

/** The operation tags, with descriptions. */
export const TAGS = [
  { name: 'directory', description: "Search the directory, read a firm, see what it covers, open a firm's website." },
  { name: 'service', description: 'This description and the pages behind problem types.' },
  { name: 'mcp', description: 'The same three calls as Model Context Protocol tools (JSON-RPC over HTTP, stateless).' },
];

/** `info.license`: the project's licence (SPDX identifier), not the terms of use (those are `termsOfService`). */
export const API_LICENSE = { name: 'MIT', identifier: 'MIT' } as const;

/** Where the served document points: the shim's public base URL and the configured corrections address. */
export interface OpenApiLinks {
  publicBaseUrl: string;
  /** Null keeps DEFAULT_CORRECTIONS_EMAIL. */
  correctionsEmail: string | null;
}

/** `doc` with servers, contact and terms of service on `links.publicBaseUrl`, and the licence. Pure; `doc` is not changed. */
export function servedOpenApi(doc: Record<string, unknown>, links: OpenApiLinks): Record<string, unknown> {
  const base = links.publicBaseUrl.replace(/\/+$/, '');
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const { title, version, description, ...rest } = info;
  return {
    ...doc,
    info: {
      title,
      version,
      description,
      ...rest,
      termsOfService: `${base}/terms`,
      contact: {
        name: 'Corrections and questions',
        url: `${base}/corrections`,
        email: links.correctionsEmail ?? DEFAULT_CORRECTIONS_EMAIL,
      },
      // The licence of the software and its description; how the answers may be used is the terms of service.
      license: API_LICENSE,
    },
    servers: [{ url: base, description: 'This service' }],
  };
}
