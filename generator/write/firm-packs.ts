/**
 * Firm documents and the firm packs that hold them: one object per listing prefix (firmPackPrefix), the documents of
 * its listings in listing_id order. A national version has a million firm documents; written one file each they were
 * most of a run's time (a file created costs far more than its bytes), packed they are a few tens of thousands.
 */
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import { firmPackPrefix, LISTING_ALPHABET } from '../../shim/format/site-format.ts';
import type { FirmDocT } from '../../shim/format/site-format.ts';
import { firmBrandFor, type BuiltFirm } from '../model/offices.ts';

/** The part of an office's firm document before `office`: schema version, listing id and the firm. */
function firmDocHead(
  built: BuiltFirm,
  office: BuiltFirm['offices'][number],
): Pick<FirmDocT, 'schema_version' | 'listing_id' | 'firm'> {
  const { firm } = built;
  return {
    schema_version: SCHEMA_VERSIONS.firm,
    listing_id: office.listing_id,
    firm: {
      firm_id: firm.firmId,
      name: firm.name,
      website_url: firm.websiteUrl,
      website_domain: firm.domain,
      profile_type: firm.profileType,
      sponsored: firm.sponsored,
      brand: firmBrandFor(office, built),
    },
  };
}

/** One firm document per office of the firm: the office, the firm, and the firm's other offices by listing_id. */
export function firmDocs(built: BuiltFirm): FirmDocT[] {
  return built.offices.map((office) => ({
    ...firmDocHead(built, office),
    office,
    other_offices: built.offices.filter((o) => o !== office),
  }));
}

/** The JSON text of each office of a firm, with its UTF-8 length and the lengths' sum. */
interface FirmTexts {
  texts: string[];
  lengths: number[];
  all: number;
}

function firmTexts(built: BuiltFirm): FirmTexts {
  const texts = built.offices.map((o) => JSON.stringify(o));
  const lengths = texts.map((t) => Buffer.byteLength(t, 'utf8'));
  let all = 0;
  for (const n of lengths) all += n;
  return { texts, lengths, all };
}

/** A document (or pack) as pieces of JSON text and their total UTF-8 length. */
export interface Pieces {
  pieces: string[];
  bytes: number;
}

/** The document of office `i` of `built` as pieces appended to `out`; returns their UTF-8 length. */
function firmDocInto(built: BuiltFirm, t: FirmTexts, i: number, out: string[]): number {
  const office = built.offices[i] as BuiltFirm['offices'][number];
  const head = JSON.stringify(firmDocHead(built, office)).slice(0, -1);
  out.push(head, ',"office":', t.texts[i] as string, ',"other_offices":[');
  let first = true;
  for (let j = 0; j < t.texts.length; j++) {
    if (j === i) continue;
    if (!first) out.push(',');
    first = false;
    out.push(t.texts[j] as string);
  }
  out.push(']}');
  // head + the keys and brackets (all ASCII) + this office + the others and their commas.
  return (
    Buffer.byteLength(head, 'utf8') + ',"office":,"other_offices":[]}'.length + t.all + Math.max(0, t.texts.length - 2)
  );
}

/**
 * firmDocs(built) as pieces of JSON text, one document at a time, with their UTF-8 length: the pieces joined are exactly
 * `JSON.stringify(doc)`. Every office is serialised once per firm and each document is only a list of pieces, which the
 * writer encodes straight into its batch (no string per document, then copied).
 */
export function* firmDocPieces(built: BuiltFirm): Generator<Pieces & { listingId: string }> {
  const t = firmTexts(built);
  for (let i = 0; i < built.offices.length; i++) {
    const pieces: string[] = [];
    const bytes = firmDocInto(built, t, i, pieces);
    yield { listingId: (built.offices[i] as BuiltFirm['offices'][number]).listing_id, pieces, bytes };
  }
}

/** Every prefix of `length` characters of LISTING_ALPHABET, in its order. */
export function alphabetPrefixes(length: number): string[] {
  let out = [''];
  for (let n = 0; n < length; n++) out = out.flatMap((p) => [...LISTING_ALPHABET].map((c) => p + c));
  return out;
}

/** Firms of at least this many offices keep their office texts between packs (a smaller firm's are cheaper to redo). */
const CACHED_FIRM_OFFICES = 4;
/** Office texts kept between packs, in UTF-16 units at most (then dropped and redone). */
const TEXT_CACHE_UNITS = 16 << 20;

/**
 * Every firm pack of the version (`listingPrefixLength`: its listings buckets' prefix length), in LISTING_ALPHABET order
 * of prefix, empty packs included, each as pieces of exactly the JSON text of its FirmPack object. One pack is built at
 * a time, so memory holds one pack's pieces, typed arrays over the offices and a bounded cache of office texts, not
 * every document.
 */
export function* firmPackPieces(
  built: readonly BuiltFirm[],
  listingPrefixLength: number,
): Generator<Pieces & { prefix: string; documents: number }> {
  const prefixes = alphabetPrefixes(listingPrefixLength + 1);
  const packOf = new Map(prefixes.map((p, i) => [p, i]));
  // Offices numbered in firm order, then grouped by pack (a counting sort): typed arrays, not an array per pack.
  let count = 0;
  for (const b of built) count += b.offices.length;
  const firmOf = new Int32Array(count);
  const officeOf = new Int32Array(count);
  const packAt = new Int32Array(count);
  const starts = new Int32Array(prefixes.length + 1);
  let n = 0;
  built.forEach((b, f) =>
    b.offices.forEach((o, k) => {
      const p = packOf.get(firmPackPrefix(o.listing_id, listingPrefixLength));
      if (p === undefined) throw new Error(`listing id ${o.listing_id} is outside the listing alphabet`);
      firmOf[n] = f;
      officeOf[n] = k;
      packAt[n++] = p;
      starts[p + 1] = (starts[p + 1] as number) + 1;
    }),
  );
  for (let p = 0; p < prefixes.length; p++) starts[p + 1] = (starts[p + 1] as number) + (starts[p] as number);
  const next = starts.slice(0, -1);
  const byPack = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const p = packAt[i] as number;
    const at = next[p] as number;
    byPack[at] = i;
    next[p] = at + 1;
  }
  const officeAt = (i: number): BuiltFirm['offices'][number] =>
    (built[firmOf[i] as number] as BuiltFirm).offices[officeOf[i] as number] as BuiltFirm['offices'][number];
  let cache = new Map<number, FirmTexts>();
  let cached = 0;
  const textsOf = (f: number): FirmTexts => {
    const b = built[f] as BuiltFirm;
    if (b.offices.length < CACHED_FIRM_OFFICES) return firmTexts(b);
    let t = cache.get(f);
    if (t === undefined) {
      t = firmTexts(b);
      if (cached > TEXT_CACHE_UNITS) {
        cache = new Map();
        cached = 0;
      }
      cache.set(f, t);
      for (const s of t.texts) cached += s.length;
    }
    return t;
  };
  for (const [p, prefix] of prefixes.entries()) {
    const docs = Array.from(byPack.subarray(starts[p], starts[p + 1]));
    docs.sort((a, b) => (officeAt(a).listing_id < officeAt(b).listing_id ? -1 : 1));
    const head = `{"schema_version":${SCHEMA_VERSIONS.firm},"prefix":${JSON.stringify(prefix)},"documents":[`;
    const pieces = [head];
    let bytes = head.length + ']}'.length + Math.max(0, docs.length - 1);
    docs.forEach((i, d) => {
      if (d > 0) pieces.push(',');
      const f = firmOf[i] as number;
      bytes += firmDocInto(built[f] as BuiltFirm, textsOf(f), officeOf[i] as number, pieces);
    });
    pieces.push(']}');
    yield { prefix, pieces, bytes, documents: docs.length };
  }
}
