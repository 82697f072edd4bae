/** The three public operations, shared by REST and MCP: one code path for validation and shaping. */
import type { PageDocT } from '../format/page-format.ts';
import type { AttorneysResponseT, CoverageResponseT, FirmResponseT } from '../contract/schemas.ts';
import type { RawArgs } from './params.ts';
import type { SearchRequest } from './search-request.ts';
import type { SentPoint } from './firm-params.ts';
import type { ChangesDocT, PointerT } from '../format/site-format.ts';

/** What the edge knows about the request, for shaping and logging. */
export interface CallContext {
  /** Absolute base URL of the service for `website` links, without trailing slash, e.g. http://127.0.0.1:8787 */
  publicBaseUrl: string;
  /**
   * The caller's record of the published version the operation read (for the Directory-Version header): the
   * operation writes it once it has chosen its version; nothing is called back.
   */
  read?: { version: string | null };
}

/** What the served version says about its data. */
export interface DatasetInfo {
  name: string;
  /** True while the firms are fictional sample data. */
  synthetic: boolean;
  metros: number;
}

/** The public operations. Each rejects with ApiError (caller's mistake, not found) or StoreError (store failure). */
export interface Service {
  /**
   * The search answer of a request parsed once by parseSearch (the edge's value: cache key and log fields beside the
   * arguments); raw arguments are parsed here (library callers, tests). Rejects the request's ApiError when invalid.
   */
  findAttorneys(search: SearchRequest | RawArgs, ctx: CallContext): Promise<AttorneysResponseT>;
  /**
   * The firm document of a listing; with the person's point, seen from it (firm-near.ts), after refusing a point
   * outside the US as the search does (ApiError location_not_understood, before the id is looked up).
   */
  getFirm(listingId: string, ctx: CallContext, near?: SentPoint | null): Promise<FirmResponseT>;
  getCoverage(ctx: CallContext): Promise<CoverageResponseT>;
  /** The served version's changes document: listings added, removed and changed since the version live before it, and why. */
  getChanges(ctx: CallContext): Promise<ChangesDocT>;
  /**
   * The firm's own site for GET /r/{listing_id}, with utm_source set. Rejects ApiError not_found for an unknown id and
   * for a listing without a website (a link that does not exist).
   */
  redirectTarget(listingId: string, ctx?: CallContext): Promise<string>;
  /** The OpenAPI document of the served version. */
  openapi(ctx?: CallContext): Promise<unknown>;
  /** The served version's dataset and how many metros it measures (the MCP instructions name both); rejects StoreError like currentVersion. */
  dataset(): Promise<DatasetInfo>;
  /** The version being served now (the pointer's); rejects StoreError when the store cannot be read. */
  currentVersion(): Promise<string>;
  /** A page for people of the served version by page name (see page-format.ts), or null when there is none. */
  page(name: string): Promise<PageDocT | null>;
  /**
   * A published object of the served version as stored (`v/<version>/<rel>`, e.g. `cells/index.json`,
   * `measurement/chicago.json`), checked against the sha256 recorded for it, or null when `version` is not the served
   * one or the version holds no such object. Older versions are kept for rollback and may still hold listings a
   * standing removal took out since, so no other version's objects are answered (shim/search/version-object.ts).
   */
  versionObject?(version: string, rel: string, ctx: CallContext): Promise<Uint8Array | null>;
  /** The pointer of the served version (`current.json`): version, week and meta.json's sha256. */
  pointer?(ctx: CallContext): Promise<PointerT>;
}
