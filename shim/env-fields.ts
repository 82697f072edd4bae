/** Environment-variable field schemas shared by the local server's config and the Lambda's cold-start env. */
import { z } from 'zod';
import { REQUESTS_PER_HOUR } from './core/constants.ts';
import { DEFAULT_ANSWER_CACHE_MIB } from './http/answer-cache.ts';
import { DEFAULT_STORE_TIMEOUT_MS } from './store/deadline.ts';

/** An empty or blank variable counts as unset (so its default applies). */
export const blankIsUnset = (value: unknown): unknown => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const origin = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}, 'each origin must look like https://example.com (scheme, host and optional port, nothing else)');

/** RATE_LIMIT_PER_HOUR: requests per hour per address, default REQUESTS_PER_HOUR, 0 disables. */
export const rateLimitField = z.preprocess(blankIsUnset, z.coerce.number().int().min(0).max(10_000_000).default(REQUESTS_PER_HOUR));

/**
 * RATE_LIMIT_WINDOW_SECONDS: the window the limit is counted and advertised in, default 3600. A shorter window (AWS
 * WAF counts in 60..600 s) scales the hourly quota down to it, so it must divide an hour evenly.
 */
export const rateLimitWindowField = z.preprocess(
  blankIsUnset,
  z.coerce.number().int().min(1).max(3600).refine((w) => 3600 % w === 0, 'must divide 3600 evenly (e.g. 60, 300, 600, 3600)').default(3600),
);

/** CORRECTIONS_EMAIL: the address firms and callers write to, shown as the OpenAPI contact; unset means the default. */
export const correctionsEmailField = z.preprocess(blankIsUnset, z.email('must be an email address').optional());

/** CACHE_MIB: budget of the parsed-object cache in MiB of memory held (parsed size and search columns, estimated), default 64. */
export const cacheMibField = z.preprocess(blankIsUnset, z.coerce.number().int().min(1).max(65_536).default(64));

/** STORE_TIMEOUT_MS: how long one store read may take before the request that needs it is a 503 (100 ms - 60 s). */
export const storeTimeoutField = z.preprocess(blankIsUnset, z.coerce.number().int().min(100).max(60_000).default(DEFAULT_STORE_TIMEOUT_MS));

/** ANSWER_CACHE_MIB: budget of the local server's cache of finished /v1/attorneys answers, in MiB; 0 turns it off. */
export const answerCacheMibField = z.preprocess(blankIsUnset, z.coerce.number().int().min(0).max(65_536).default(DEFAULT_ANSWER_CACHE_MIB));

/** ALLOWED_ORIGINS: comma-separated browser origins allowed to call /mcp; parsed to a list without trailing slashes. */
export const allowedOriginsField = z.preprocess(
  blankIsUnset,
  z
    .string()
    .transform((s) => s.split(',').map((o) => o.trim()).filter((o) => o !== ''))
    .pipe(z.array(origin))
    .default([])
    .transform((list) => list.map((o) => o.replace(/\/$/, ''))),
);
