/** Cacheable JSON documents (firm, coverage, openapi): strong ETag over the body, 304 on a matching If-None-Match. */
import { createHash } from 'node:crypto';
import type { Answer } from '../edge/edge-types.ts';

/** Cache-Control of documents that change at most once per publish (weekly, or a same-day correction). */
export const DOCUMENT_CACHE_CONTROL = 'public, max-age=300';
/**
 * Cache-Control of a 200 /v1/attorneys answer. Shared caches (CloudFront) keep it for up to a week, the publishing
 * cadence: every publish invalidates `/v1/attorneys*`, so it is served until the next publish and never past it.
 * Browsers keep it 5 minutes like the documents, since nothing can invalidate a browser's copy.
 */
export const ANSWER_CACHE_CONTROL = 'public, max-age=300, s-maxage=604800';
/** Seconds a shared cache may keep an answer (the s-maxage of ANSWER_CACHE_CONTROL). */
export const ANSWER_SHARED_MAX_AGE_SECONDS = 604_800;
/** Cache-Control of errors, redirects and MCP. */
export const NO_STORE = 'no-store';

/** Strong entity tag: the quoted base64url SHA-256 of the body bytes. */
export function etagOf(body: string | Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** Documents served lately (coverage, changes, openapi, firms): the same text is encoded and hashed once, not per request. */
const MAX_REMEMBERED_DOCUMENTS = 64;
const documents = new Map<string, { bytes: Uint8Array; etag: string }>();

function encodedDocument(text: string): { bytes: Uint8Array; etag: string } {
  let known = documents.get(text);
  if (known === undefined) {
    const bytes = new TextEncoder().encode(text);
    known = { bytes, etag: etagOf(bytes) };
    if (documents.size >= MAX_REMEMBERED_DOCUMENTS) documents.delete(documents.keys().next().value as string);
    documents.set(text, known);
  }
  return known;
}

/** True when If-None-Match matches `etag` (weak comparison, as RFC 9110 §13.1.2 requires for If-None-Match). */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}

/** A document encoded once: its bytes, strong ETag and full Content-Type. */
export interface EncodedDocument {
  bytes: Uint8Array;
  etag: string;
  contentType: string;
}

/** A document (JSON, a string sent as is, or bytes sent as is with no charset) as bytes with its ETag. */
export function encodeDocument(body: unknown, contentType = 'application/json'): EncodedDocument {
  if (body instanceof Uint8Array) return { bytes: body, etag: etagOf(body), contentType };
  const text = typeof body === 'string' && contentType !== 'application/json' ? body : JSON.stringify(body);
  return { ...encodedDocument(text), contentType: `${contentType}; charset=utf-8` };
}

/** The 200 answer of an encoded document with ETag and Cache-Control, or a bodiless 304 when the caller's copy is current. */
export function documentAnswer(ifNoneMatch: string | null, doc: EncodedDocument): Answer {
  if (ifNoneMatchHits(ifNoneMatch, doc.etag))
    return { status: 304, headers: { etag: doc.etag, 'cache-control': DOCUMENT_CACHE_CONTROL }, body: null };
  return {
    status: 200,
    headers: {
      etag: doc.etag,
      'cache-control': DOCUMENT_CACHE_CONTROL,
      'content-type': doc.contentType,
      'content-length': String(doc.bytes.byteLength),
    },
    body: doc.bytes,
  };
}
