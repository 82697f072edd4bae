/** The Service over a source of site versions: parse -> resolve -> search -> shape, one version per call. */
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { DISCLOSURE, ORDER_TEXT } from './constants.ts';
import { ApiError } from './errors.ts';
import { parsedFromArg } from './location.ts';
import { PAGE_NAME_RE, PageDoc, pageKey } from './page-format.ts';
import { parseAttorneysArgs } from './params.ts';
import type { SiteReader } from './reader.ts';
import { resolveLocation } from './resolve.ts';
import type { AttorneysResponseT } from './schemas.ts';
import { search } from './search.ts';
import type { CallContext, RawArgs, Service } from './service.ts';
import { shapeCoverage, shapeFirm, shapeLocation, shapeResult, withUtmSource } from './shape.ts';
import { CoverageDoc, FirmDoc, keys, LISTING_ID_RE, type FirmDocT } from './site-format.ts';
import { StoreError } from '../store/types.ts';

function notFound(listingId: string): ApiError {
  return new ApiError('not_found', `No listing with id ${JSON.stringify(listingId.slice(0, 80))}. Use a listing_id exactly as a search returned it.`, {
    parameter: 'listing_id',
  });
}

async function firmDoc(reader: SiteReader, listingId: string): Promise<FirmDocT> {
  if (!LISTING_ID_RE.test(listingId)) throw notFound(listingId);
  const doc = await reader.json(keys.firm(reader.version, listingId), FirmDoc);
  if (doc === null) throw notFound(listingId);
  return doc;
}

async function required<T>(reader: SiteReader, key: string, schema: z.ZodType<T>): Promise<T> {
  const value = await reader.json(key, schema);
  if (value === null) throw new StoreError(`version ${reader.version} has no ${key}`, key);
  return value;
}

/** The Service; `source.current()` is called once per operation, so one answer never mixes two versions. */
export function createService(source: { current(): Promise<SiteReader> }): Service {
  return {
    async findAttorneys(args: RawArgs, ctx: CallContext): Promise<AttorneysResponseT> {
      const q = parseAttorneysArgs(args);
      const parsed = parsedFromArg(q.location);
      const reader = await source.current();
      const location = await resolveLocation(parsed, reader);
      const found = await search(reader, location.lat, location.lng, q.radiusMiles, q.limit);
      return {
        query_id: uuidv7(),
        covered: found.covered,
        location: shapeLocation(location, found.metro),
        radius_miles_used: q.radiusMiles,
        firms_within_radius: found.firmsWithinRadius,
        order: ORDER_TEXT,
        disclosure: DISCLOSURE,
        results: found.hits.map((h) => shapeResult(h.office, reader.meta, h.distanceMiles, h.officesWithinRadius, ctx.publicBaseUrl)),
      };
    },

    async getFirm(listingId, ctx) {
      const reader = await source.current();
      return shapeFirm(await firmDoc(reader, listingId), reader.meta, ctx.publicBaseUrl);
    },

    async getCoverage() {
      const reader = await source.current();
      return shapeCoverage(await required(reader, keys.coverage(reader.version), CoverageDoc));
    },

    async redirectTarget(listingId) {
      const reader = await source.current();
      const doc = await firmDoc(reader, listingId);
      const site = doc.office.website_url ?? doc.firm.website_url;
      const target = site === null ? null : withUtmSource(site);
      // No website (or one that is not an http(s) URL): nothing to redirect to, so the link does not exist.
      if (target === null) {
        throw new ApiError('not_found', `Listing ${listingId} has no website to redirect to.`, { parameter: 'listing_id' });
      }
      return target;
    },

    async openapi() {
      const reader = await source.current();
      return required(reader, keys.openapi(reader.version), z.unknown());
    },

    async page(name) {
      if (!PAGE_NAME_RE.test(name)) return null;
      const reader = await source.current();
      return reader.json(pageKey(reader.version, name), PageDoc);
    },
  };
}
