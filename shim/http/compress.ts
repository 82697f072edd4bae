/**
 * Answer compression, the pipeline's last step: gzip or brotli by the request's
 * Accept-Encoding, for JSON and HTML bodies, with `Vary: Accept-Encoding` on every compressible answer.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import type { Answer } from '../edge/edge-types.ts';
import { MAX_REMEMBERED_CODINGS } from '../edge/limits.ts';

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

/** `vary` (absent: none) made to name Accept-Encoding; undefined when it already covers it. */
function varyWithEncoding(vary: string | undefined): string | undefined {
  const names = vary === undefined ? [] : vary.split(',').map((v) => v.trim().toLowerCase());
  if (names.includes('accept-encoding') || names.includes('*')) return undefined;
  return vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
}

/** The weak form of a strong ETag (a compressed body is not byte-equal to the tagged one); undefined when already weak. */
function weakened(etag: string | undefined): string | undefined {
  return etag === undefined || etag.startsWith('W/') ? undefined : `W/${etag}`;
}

const codings = new Map<string, Encoding | null>();

/** chooseEncoding memoised per Accept-Encoding value (negotiation parses q-values each time; clients send a handful). */
export function encodingFor(acceptEncoding: string | null): Encoding | null {
  if (acceptEncoding === null) return null;
  let coding = codings.get(acceptEncoding);
  if (coding === undefined) {
    coding = chooseEncoding(acceptEncoding);
    if (codings.size >= MAX_REMEMBERED_CODINGS) codings.clear();
    codings.set(acceptEncoding, coding);
  }
  return coding;
}

/**
 * The one compression step: `answer` encoded for a request that sent `acceptEncoding` (a HEAD's answer still has its
 * body here, so its headers are GET's). Compressible answers (and their bodiless 304s) gain `Vary: Accept-Encoding`;
 * a compressed body gets Content-Encoding, its own Content-Length and a weak ETag (the bytes differ from the identity
 * representation, the content does not; If-None-Match compares weakly, so either tag revalidates). Anything already
 * encoded, not compressible, or without a body passes through with Vary only. The answer given is not changed.
 */
export async function compress(answer: Answer, acceptEncoding: string | null): Promise<Answer> {
  const revalidation = answer.status === 304;
  if (!isCompressible(answer.headers['content-type'] ?? null) && !revalidation) return answer;
  const encoding = encodingFor(acceptEncoding);
  const headers = { ...answer.headers };
  const vary = varyWithEncoding(headers.vary);
  if (vary !== undefined) headers.vary = vary;
  const already = headers['content-encoding'];
  if (encoding === null || (already !== undefined && already !== 'identity') || answer.body === null) {
    const weak = revalidation && encoding !== null ? weakened(headers.etag) : undefined;
    if (weak !== undefined) headers.etag = weak;
    return { status: answer.status, headers, body: answer.body };
  }
  const body = await encode(answer.body, encoding);
  headers['content-encoding'] = encoding;
  headers['content-length'] = String(body.byteLength);
  const weak = weakened(headers.etag);
  if (weak !== undefined) headers.etag = weak;
  return { status: answer.status, headers, body };
}
