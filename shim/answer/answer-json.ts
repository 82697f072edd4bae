/**
 * The JSON text of a search answer, byte for byte JSON.stringify's, built from each shown office's text around its two
 * per-answer numbers (distance_miles, offices_within_radius), made once per office, base URL and version: a result is
 * mostly long constant strings (the what_this_is texts, hours), and escaping them again was most of the answer's
 * serialisation. Results the service did not register are serialised whole. The text is kept only as UTF-8 bytes,
 * outside the JavaScript heap: kept as a string as well, it was a sixth of what a warm 1 mi query left on the heap for
 * the next young-generation collections to copy (BENCHMARKS.md section 14).
 */
import type { AttorneysResponseT, ResultT } from '../contract/schemas.ts';
import { roundMiles, shapeResult, type ShapeMeta } from './shape.ts';
import type { StoredOfficeT } from '../format/site-format.ts';
import { ByteLru } from '../lib/byte-lru.ts';
import { RESULT_TEXT_CACHE_BYTES } from '../edge/limits.ts';

const DISTANCE = ',"distance_miles":';
const COUNT = ',"offices_within_radius":';
/** The text of a result before its distance, between the distance and the count, and after the count. */
type Parts = readonly [string, string, string];
/** The same three parts as UTF-8 bytes, encoded once per office text. */
type ByteParts = readonly [Buffer, Buffer, Buffer];

/**
 * Parts by listing id, for the office object, base URL and meta they were made with (one of each is served at a time).
 * Bounded by bytes, not tied to the office objects: the parsed-object cache's charge does not count these texts.
 */
const byOffice = new ByteLru<{
  office: StoredOfficeT;
  base: string;
  meta: ShapeMeta;
  /** The office's result at distance 0 with count 0, deeply frozen: every result of it is a copy with its two numbers. */
  template: ResultT;
  bytes: ByteParts | null;
}>(RESULT_TEXT_CACHE_BYTES);
/** What an entry holds beyond its bytes: the entry, its key, the template's objects and the three buffers' objects. */
const ENTRY_OVERHEAD_BYTES = 1024;
/** Parts of each result object the service handed out, as bytes. */
const byResult = new WeakMap<ResultT, ByteParts>();

/** A result's text split around its two numbers, or null when its text is not of the expected form. */
function split(text: string): Parts | null {
  const d = text.indexOf(DISTANCE);
  const c = text.lastIndexOf(COUNT);
  if (d < 0 || c < d || !text.startsWith('0,', d + DISTANCE.length) || !text.endsWith('0}')) return null;
  return [text.slice(0, d + DISTANCE.length), text.slice(d + DISTANCE.length + 1, c + COUNT.length), '}'];
}

/**
 * shapeResult's result, registered so that answerJson writes it from its office's cached text. The result must not be
 * changed afterwards (no caller changes one: they are serialised or read).
 */
export function shapeResultWithText(
  office: StoredOfficeT,
  meta: ShapeMeta,
  distanceMiles: number,
  officesWithinRadius: number,
  publicBaseUrl: string,
): ResultT {
  let known = byOffice.get(office.listing_id);
  if (known === undefined || known.office !== office || known.base !== publicBaseUrl || known.meta !== meta) {
    const template = deepFreeze(shapeResult(office, meta, 0, 0, publicBaseUrl));
    const parts = split(JSON.stringify(template));
    const bytes =
      parts === null ? null : ([Buffer.from(parts[0]), Buffer.from(parts[1]), Buffer.from(parts[2])] as const);
    known = { office, base: publicBaseUrl, meta, template, bytes };
    // The UTF-8 bytes; the template shares its strings with the office.
    const length = bytes === null ? 0 : bytes[0].length + bytes[1].length + bytes[2].length;
    byOffice.set(office.listing_id, known, length + ENTRY_OVERHEAD_BYTES);
  }
  // The template's copy: the same keys in the same order (a spread keeps them; the two numbers replace theirs in place),
  // its nested values shared and frozen, so building a result no longer shapes the office again.
  const result: ResultT = {
    ...known.template,
    distance_miles: roundMiles(distanceMiles),
    offices_within_radius: officesWithinRadius,
  };
  if (known.bytes !== null) byResult.set(result, known.bytes);
  return result;
}

/** `value` with every object and array in it frozen (a shared template must not be changed through one result). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function resultJson(result: ResultT): string {
  const bytes = byResult.get(result);
  if (bytes === undefined) return JSON.stringify(result);
  // The parts end at ASCII delimiters, so each decodes to its own text.
  return `${bytes[0].toString()}${JSON.stringify(result.distance_miles)}${bytes[1].toString()}${JSON.stringify(result.offices_within_radius)}${bytes[2].toString()}`;
}

const EMPTY_RESULTS = '"results":[]}';

/** The answer's text before its results ("...,"results":["), or null when the body is not of the expected form. */
function headOf(body: AttorneysResponseT): string | null {
  const head = JSON.stringify({ ...body, results: [] });
  return head.endsWith(EMPTY_RESULTS) && body.results.length > 0 ? head.slice(0, -2) : null;
}

/** JSON.stringify(body), faster for results made by shapeResultWithText. */
export function answerJson(body: AttorneysResponseT): string {
  const head = headOf(body);
  return head === null ? JSON.stringify(body) : `${head}${body.results.map(resultJson).join(',')}]}`;
}

/**
 * Buffer.from(answerJson(body)), written from each office's bytes (encoded once per office text) around its two
 * numbers: the 17 KB of a ten-result answer are copied, not serialised and encoded again.
 */
export function answerBytes(body: AttorneysResponseT): Buffer {
  const head = headOf(body);
  const known = head === null ? [] : body.results.map((r) => byResult.get(r));
  if (head === null || known.some((b) => b === undefined)) return Buffer.from(answerJson(body));
  const pieces: (Buffer | string)[] = [head];
  body.results.forEach((result, i) => {
    const bytes = known[i] as ByteParts;
    if (i > 0) pieces.push(',');
    pieces.push(
      bytes[0],
      JSON.stringify(result.distance_miles),
      bytes[1],
      JSON.stringify(result.offices_within_radius),
      bytes[2],
    );
  });
  pieces.push(']}');
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  return out;
}
