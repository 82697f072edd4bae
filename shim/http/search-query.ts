/**
 * The /v1/attorneys query string parsed into its SearchRequest, once per distinct query: the answer cache's lookup and
 * the route read the same value, and a repeated query is not parsed again.
 */
import { parseSearch, type SearchRequest } from '../answer/search-request.ts';
import { MAX_REMEMBERED_SEARCHES } from '../edge/limits.ts';
import { parseQuery } from './query.ts';

const searches = new Map<string, SearchRequest>();

/** The search of a query string (without "?"), memoised when valid; throws the ApiError of an unreadable query string. */
export function searchOf(query: string): SearchRequest {
  const known = searches.get(query);
  if (known !== undefined) return known;
  const parsed = parseSearch(parseQuery(query));
  // Only valid searches are kept: a flood of malformed queries cannot crowd out the ones worth keeping.
  if (parsed.ok) {
    if (searches.size >= MAX_REMEMBERED_SEARCHES) searches.clear();
    searches.set(query, parsed);
  }
  return parsed;
}
