/**
 * Response compression for the platform adapters (local server, Lambda): gzip or brotli by the request's
 * Accept-Encoding, for JSON and HTML bodies, with `Vary: Accept-Encoding` on every compressible answer.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import type { PlainParts } from './plain-response.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Encodings offered, best first among equally acceptable ones (brotli is about 20% smaller than gzip on our JSON). */
export const ENCODINGS = ['br', 'gzip'] as const;
/** One of ENCODINGS. */
export type Encoding = (typeof ENCODINGS)[number];

// Quality 5 and level 6: a 16.6 KB answer of 10 results compresses to 2.1 KB (br) / 2.3 KB (gzip) in about 1.6 / 0.5 ms
// on the development machine, where brotli's default quality 11 takes tens of milliseconds for a few percent more.
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

/** Content types worth compressing: JSON (incl. problem+json) and text. */
export function isCompressible(contentType: string | null): boolean {
  return contentType !== null && /^(application\/([\w.+-]*\+)?json|text\/)/i.test(contentType);
}

/** The encoding to use for an Accept-Encoding header value, or null for none (absent header, identity only, q=0). */
export function chooseEncoding(acceptEncoding: string | null): Encoding | null {
  if (acceptEncoding === null || acceptEncoding.trim() === '') return null;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } });
  // negotiator 1.x takes a `preferred` order for equally weighted encodings; @types/negotiator (0.6) does not know it.
  const encoding = negotiator.encoding.bind(negotiator) as unknown as (
    available: string[],
    opts: { preferred: string[] },
  ) => string | undefined;
  const chosen = encoding([...ENCODINGS, 'identity'], { preferred: [...ENCODINGS] });
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

/** `body` encoded with `encoding`. */
export async function encode(body: Uint8Array, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'br') {
    return brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    });
  }
  return gzipAsync(body, { level: GZIP_LEVEL });
}

/** `vary` (null: none) made to name Accept-Encoding; null when it already covers it. */
function varyWithEncoding(vary: string | null): string | null {
  const names = vary === null ? [] : vary.split(',').map((v) => v.trim().toLowerCase());
  if (names.includes('accept-encoding') || names.includes('*')) return null;
  return vary === null ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
}

/** The weak form of a strong ETag (a compressed body is not byte-equal to the tagged one); null when already weak. */
function weakened(etag: string): string | null {
  return etag.startsWith('W/') ? null : `W/${etag}`;
}

function addVary(headers: Headers): void {
  const vary = varyWithEncoding(headers.get('vary'));
  if (vary !== null) headers.set('vary', vary);
}

/**
 * The parts compressResponse gives a plain answer (plain-response.ts) that stays as it is, only gaining Vary: no
 * encoding asked for, already encoded, or no body; null when its body is to be encoded (use compressResponse).
 */
export function compressPlain(parts: PlainParts, acceptEncoding: string | null): PlainParts | null {
  const revalidation = parts.status === 304;
  if (!isCompressible(parts.headers['content-type'] ?? null) && !revalidation) return parts;
  const encoding = chooseEncoding(acceptEncoding);
  const already = parts.headers['content-encoding'];
  if (encoding !== null && (already === undefined || already === 'identity') && parts.body !== null) return null;
  const headers = { ...parts.headers };
  const vary = varyWithEncoding(headers.vary ?? null);
  if (vary !== null) headers.vary = vary;
  const weak = revalidation && encoding !== null && headers.etag !== undefined ? weakened(headers.etag) : null;
  if (weak !== null) headers.etag = weak;
  return { ...parts, headers };
}

/**
 * `response` encoded for a request that sent `acceptEncoding`. Compressible answers (and their bodiless 304s and HEADs)
 * gain `Vary: Accept-Encoding`; a compressed body gets Content-Encoding, its own Content-Length and a weak ETag (the
 * bytes differ from the identity representation, the content does not; If-None-Match compares weakly, so either
 * tag revalidates). Anything already encoded, not compressible, or without a body passes through with Vary only.
 */
export async function compressResponse(response: Response, acceptEncoding: string | null): Promise<Response> {
  const contentType = response.headers.get('content-type');
  const revalidation = response.status === 304;
  if (!isCompressible(contentType) && !revalidation) return response;
  const encoding = chooseEncoding(acceptEncoding);
  const already = response.headers.get('content-encoding');
  // The body is looked at last: a lightweight Response (the Node adapter's) builds a full one to tell it.
  if (encoding === null || (already !== null && already !== 'identity') || response.body === null) {
    const passThrough = (headers: Headers): void => {
      addVary(headers);
      if (revalidation && encoding !== null) weakenEtag(headers);
    };
    try {
      // The body passes as it is: only headers change, in place when they may (no copy of the Response).
      passThrough(response.headers);
      return response;
    } catch {
      const headers = new Headers(response.headers);
      passThrough(headers);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    }
  }
  const headers = new Headers(response.headers);
  addVary(headers);
  const encoded = await encodeInto(headers, new Uint8Array(await response.arrayBuffer()), encoding);
  return new Response(new Uint8Array(encoded), { status: response.status, statusText: response.statusText, headers });
}

/** `plain` encoded with `encoding`, and `headers` (a copy) made to describe it: coding, length, weak ETag. */
async function encodeInto(headers: Headers, plain: Uint8Array, encoding: Encoding): Promise<Buffer> {
  const encoded = await encode(plain, encoding);
  headers.set('content-encoding', encoding);
  headers.set('content-length', String(encoded.byteLength));
  weakenEtag(headers);
  return encoded;
}

/**
 * The headers and body compressResponse gives a compressible answer already read into `bytes` (not yet encoded), without
 * building Response objects around them: for an adapter that writes bytes itself (the Node fast path's `remember`).
 */
export async function compressBytes(
  headers: Headers,
  bytes: Buffer,
  acceptEncoding: string | null,
): Promise<{ headers: Headers; body: Buffer }> {
  const out = new Headers(headers);
  addVary(out);
  const encoding = chooseEncoding(acceptEncoding);
  const already = out.get('content-encoding');
  if (encoding === null || (already !== null && already !== 'identity')) return { headers: out, body: bytes };
  return { headers: out, body: await encodeInto(out, bytes, encoding) };
}

function weakenEtag(headers: Headers): void {
  const etag = headers.get('etag');
  const weak = etag === null ? null : weakened(etag);
  if (weak !== null) headers.set('etag', weak);
}
