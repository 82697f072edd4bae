/**
 * The Lambda's S3 pieces loaded on first use: the AWS SDK's S3 client is the largest module a cold start would load,
 * and nothing needs it before the first request reads the site or the day's salt. The import stays out of the init
 * phase; the first read pays for it once (a failed load is retried by the next read).
 */
import type { SaltProvider } from '../edge/edge-types.ts';
import type { S3StoreOptions } from '../store/s3.ts';
import type { Store } from '../store/types.ts';
import type { S3SaltProviderOptions } from './salt.ts';

/** `load` run once, on the first call; a rejection is not remembered. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | null = null;
  return () =>
    (loaded ??= load().catch((err: unknown) => {
      loaded = null;
      throw err;
    }));
}

/** An S3Store (store/s3.ts) made on the first read. */
export function lazyS3Store(options: S3StoreOptions): Store {
  const store = once(async () => new (await import('../store/s3.ts')).S3Store(options));
  return {
    kind: 's3',
    get: async (key, options) => (await store()).get(key, options),
    getRange: async (key, start, end, options) => (await store()).getRange(key, start, end, options),
  };
}

/** An S3SaltProvider (salt.ts) made on the first day's salt asked for. */
export function lazySaltProvider(options: S3SaltProviderOptions): SaltProvider {
  const salt = once(async () => new (await import('./salt.ts')).S3SaltProvider(options));
  return { saltFor: async (day) => (await salt()).saltFor(day) };
}
