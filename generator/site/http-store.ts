/**
 * A Store over the public site, for auditors without credentials: `current.json` and `v/<current>/...` as the service
 * publishes them (docs/AUDIT.md), read with plain GET requests. 404 is a missing key; 429 and 503 are waited out as
 * their Retry-After (or RateLimit reset) says (every request counts toward the per-address ceiling); anything else is
 * a StoreError.
 */
import { StoreError, assertSafeKey, type Store } from '../../shim/store/types.ts';

/** Options of HttpStore. */
export interface HttpStoreOptions {
  /** Times a 429 or 503 is waited out before the read fails (default 20). */
  retries?: number;
  /** Longest wait for one Retry-After, in seconds (default 600). */
  maxWaitSeconds?: number;
  /** Told each wait (seconds, status), e.g. for a progress line. */
  onWait?: (seconds: number, status: number) => void;
  /** Sleep (tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** Reads `<base>/<key>` over HTTP(S). */
export class HttpStore implements Store {
  readonly kind = 'http';
  readonly base: string;
  readonly #opts: HttpStoreOptions;
  constructor(base: string, opts: HttpStoreOptions = {}) {
    this.base = base.replace(/\/+$/, '');
    this.#opts = opts;
  }

  async get(key: string): Promise<Uint8Array | null> {
    assertSafeKey(key);
    const url = `${this.base}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const retries = this.#opts.retries ?? 20;
    const sleep = this.#opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, { headers: { accept: 'application/json', 'user-agent': 'injury-attorney-directory-audit' } });
      } catch (err) {
        throw new StoreError(`GET ${url} failed: ${(err as Error).cause ?? (err as Error).message}`, key, { cause: err });
      }
      if (res.status === 200) return new Uint8Array(await res.arrayBuffer());
      await res.body?.cancel();
      if (res.status === 404) return null;
      if ((res.status === 429 || res.status === 503) && attempt < retries) {
        const seconds = retryAfterSeconds(
          res.headers.get('retry-after') ?? resetOf(res.headers.get('ratelimit')),
          this.#opts.maxWaitSeconds ?? 600,
        );
        this.#opts.onWait?.(seconds, res.status);
        await sleep(seconds * 1000);
        continue;
      }
      throw new StoreError(`GET ${url} answered ${res.status}${res.status === 429 ? ' (the per-address ceiling; try later)' : ''}`, key);
    }
  }
}

/** The reset seconds (`t=`) of a RateLimit header (WAF's 429 carries it without Retry-After), or null. */
export function resetOf(header: string | null): string | null {
  return header === null ? null : (/;t=(\d+)/.exec(header)?.[1] ?? null);
}

/** Seconds to wait from a Retry-After header (delta seconds or an HTTP date), at least 1 and at most `max`. */
export function retryAfterSeconds(header: string | null, max: number): number {
  if (header === null) return Math.min(5, max);
  const n = /^\d+$/.test(header.trim()) ? Number(header.trim()) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isFinite(n) ? Math.min(Math.max(1, Math.ceil(n)), max) : Math.min(5, max);
}
