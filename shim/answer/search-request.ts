/**
 * One attorney search request, parsed once: from the query string (REST) or the tool arguments (MCP) into the value
 * the answer cache, the query_id, the request log and `Service.findAttorneys` all read, so none of them parses again.
 * An invalid request is a value too: it carries its ApiError and still the log fields (the location as sent, src).
 */
import { ApiError } from '../contract/errors.ts';
import { parsedFromArg, type ParsedLocation } from '../places/location.ts';
import { locationAsSent, parseAttorneysArgs, type AttorneysArgs, type RawArgs } from './params.ts';

/** What the request log keeps of a search as sent, valid or not. */
export interface SearchSent {
  /** The location as the caller sent it, whichever form (at most 200 characters). */
  location: string | null;
  /** The `src` value when it is a string (validated or not). */
  src: string | null;
}

/** A valid search: the validated arguments, the parsed location and the normalised answer-cache key. */
export interface ValidSearch {
  ok: true;
  args: AttorneysArgs;
  /** The location parsed (not yet resolved): the one location value down to resolution. */
  location: ParsedLocation;
  /** The normalised query the answer is computed from: equivalent queries share it (answer-cache.ts). */
  key: string;
  sent: SearchSent;
}

/** A search the caller must correct: the error its answer is, and the log fields. */
export interface InvalidSearch {
  ok: false;
  error: ApiError;
  sent: SearchSent;
}

/** An attorney search request, parsed once. */
export type SearchRequest = ValidSearch | InvalidSearch;

const SEARCH_BRAND = Symbol('SearchRequest');

/** Whether `value` is a SearchRequest made by parseSearch (rather than raw arguments). */
export function isSearchRequest(value: unknown): value is SearchRequest {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SEARCH_BRAND] === true;
}

/** Parse raw search arguments once; never throws for the caller's mistakes (they become an InvalidSearch). */
export function parseSearch(raw: RawArgs): SearchRequest {
  const sent: SearchSent = { location: locationAsSent(raw), src: typeof raw.src === 'string' ? raw.src : null };
  let out: SearchRequest;
  try {
    const args = parseAttorneysArgs(raw);
    const location = parsedFromArg(args.location);
    const { parameter: _ignored, ...place } = location;
    const key = JSON.stringify([place, args.radiusMiles, args.limit, args.practiceArea]);
    out = { ok: true, args, location, key, sent };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    out = { ok: false, error, sent };
  }
  Object.defineProperty(out, SEARCH_BRAND, { value: true });
  return out;
}

/** The valid search of `request`, or its error thrown (what findAttorneys rejects with). */
export function validSearch(request: SearchRequest): ValidSearch {
  if (!request.ok) throw request.error;
  return request;
}
