/** The provider interface: one web-map search from one grid point, answered by a ranked list of places. */
import type { ApiPlaceT } from './places-api.ts';

/** Where a search is made from. */
export interface SearchPoint {
  lat: number;
  lng: number;
}

/** A provider's answer: places in the provider's order (rank 1 first), rating and review fields already dropped. */
export interface SearchAnswer {
  places: ApiPlaceT[];
  /** Billable requests this answer took (pages, and retries the provider may bill). */
  requests: number;
}

/** A web map service the collector can sample. */
export interface Provider {
  /** Short name, recorded in the archive. */
  readonly name: string;
  /** Ranked places for `query` searched from `point`. Throws FatalProviderError when no retry can help. */
  search(query: string, point: SearchPoint): Promise<SearchAnswer>;
}

/** An error retrying cannot fix (bad key, bad request, budget reached): the run stops. */
export class FatalProviderError extends Error {
  override name = 'FatalProviderError';
}

/** The budget would be exceeded by the next request. */
export class BudgetExceededError extends FatalProviderError {
  override name = 'BudgetExceededError';
}
