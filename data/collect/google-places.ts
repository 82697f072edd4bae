/** The Google Places API (New) Text Search adapter: plain fetch, every answer validated with zod. */
import type { Budget } from './pricing.ts';
import {
  ErrorBody,
  FIELD_MASK,
  MAX_PAGES,
  SEARCH_TEXT_PATH,
  SearchTextResponse,
  searchTextBody,
  type ApiPlaceT,
  type SearchTextResponseT,
} from './places-api.ts';
import { FatalProviderError, type Provider, type SearchAnswer, type SearchPoint } from './provider.ts';
import { backoffMs, retryableStatus, retryAfterMs, type BackoffPolicy } from './retry.ts';

/** Settings of the adapter. */
export interface GooglePlacesOptions {
  /** Base URL, e.g. https://places.googleapis.com (no trailing path). */
  endpoint: string;
  apiKey: string;
  /** Pages per search, 1-3 (20 places each). */
  pages: number;
  budget: Budget;
  /** Per-request timeout. */
  timeoutMs: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** Resolves when the next request may start (the requests-per-second limit). */
  throttle?: () => Promise<void>;
  /** Called before each wait, for the progress line. */
  onRetry?: (reason: string, waitMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** All attempts of one request failed with retryable errors; this sample is left for `--resume`. */
export class RetriesExhaustedError extends Error {
  override name = 'RetriesExhaustedError';
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Text Search (New) as a Provider. */
export class GooglePlacesProvider implements Provider {
  readonly name = 'google-places';
  private readonly url: string;

  private readonly options: GooglePlacesOptions;
  /** `options.apiKey` is sent in a header only and scrubbed from every error message. */
  constructor(options: GooglePlacesOptions) {
    this.options = options;
    if (options.pages < 1 || options.pages > MAX_PAGES) throw new Error(`pages must be 1-${MAX_PAGES}`);
    this.url = `${options.endpoint.replace(/\/+$/, '')}${SEARCH_TEXT_PATH}`;
  }

  /** Ranked places for `query` at `point`: the first `pages` pages, in the API's order. */
  async search(query: string, point: SearchPoint): Promise<SearchAnswer> {
    const places: ApiPlaceT[] = [];
    let requests = 0;
    let token: string | undefined;
    for (let page = 0; page < this.options.pages; page++) {
      const answer = await this.request(searchTextBody(query, point.lat, point.lng, token), () => requests++);
      places.push(...answer.places);
      token = answer.nextPageToken;
      if (token === undefined) break;
    }
    return { places, requests };
  }

  private redact(text: string): string {
    return this.options.apiKey === '' ? text : text.split(this.options.apiKey).join('[redacted]');
  }

  private async request(body: object, billed: () => void): Promise<SearchTextResponseT> {
    const { budget, maxAttempts } = this.options;
    const sleep = this.options.sleep ?? defaultSleep;
    const random = this.options.random ?? Math.random;
    let last = '';
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      budget.reserve();
      await this.options.throttle?.();
      let retryAfter: number | undefined;
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-goog-api-key': this.options.apiKey,
            'x-goog-fieldmask': FIELD_MASK,
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        const text = await res.text();
        if (res.ok) {
          budget.commit();
          billed();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const parsed = SearchTextResponse.safeParse(json);
          if (parsed.success) return parsed.data;
          last = `answer not in the Text Search format: ${parsed.error.issues[0]?.message ?? 'not JSON'}`;
        } else {
          budget.refund();
          const err = ErrorBody.safeParse(safeJson(text));
          const detail = err.success
            ? `${res.status} ${err.data.error.status ?? ''} ${err.data.error.message}`.replace(/\s+/g, ' ')
            : `HTTP ${res.status}`;
          if (!retryableStatus(res.status))
            throw new FatalProviderError(this.redact(`Places API refused the request: ${detail}`));
          last = detail;
          retryAfter = retryAfterMs(res.headers.get('retry-after'));
        }
      } catch (e) {
        if (e instanceof FatalProviderError) throw e;
        // A timeout or a dropped connection may still have been billed: keep it counted.
        budget.commit();
        billed();
        last =
          e instanceof Error && e.name === 'TimeoutError'
            ? `timeout after ${this.options.timeoutMs} ms`
            : `network error: ${e instanceof Error ? e.message : String(e)}`;
      }
      if (attempt === maxAttempts) break;
      const wait = backoffMs(attempt, this.options.backoff, retryAfter, random);
      this.options.onRetry?.(this.redact(last), wait);
      await sleep(wait);
    }
    throw new RetriesExhaustedError(this.redact(`gave up after ${maxAttempts} attempts: ${last}`));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
