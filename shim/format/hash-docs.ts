/**
 * Where a version records the sha256 of each document read by name: meta.json itself for the few a search may read
 * first (so a cold search reads no other hash document for them), a `hashes/` document for the rest, grouped so that
 * a request reads one small hash document beside the document it wants (docs/SITE-FORMAT.md, "Integrity"). The
 * gazetteer's documents also carry a proof to meta.json's root (proofs.ts), which the shim checks instead when the
 * version has one.
 */
import { COVERAGE_PIECE_RE, paths } from './paths.ts';
import { cityBucket } from './site-format.ts';

/** True for the documents whose sha256 meta.json records itself. */
export function hashInMeta(rel: string): boolean {
  return (
    rel === paths.cellIndex() ||
    rel === paths.coverage() ||
    rel === paths.coverageCells() ||
    COVERAGE_PIECE_RE.test(rel) ||
    rel === paths.openapi() ||
    rel === paths.changes() ||
    rel === paths.removals() ||
    rel === paths.boundaryIndex() ||
    /^gazetteer\/boundary\/us-[A-Z]{2}\.json$/.test(rel) ||
    /^hashes\/[a-z0-9_-]+\.json$/.test(rel)
  );
}

/**
 * The name of the `hashes/` document recording the sha256 of `rel` (relative to the version root), or null when none
 * does (meta.json records it, or it is checked against another parent). Grouped by the first character of the name
 * below a kind's folder, so each is a few KiB: a ZIP's by its first digit, a place name's and a state's city bucket by
 * their first character (so "City, ST" most often reads one), a points tile's by its latitude band, a boundary tile's
 * by its square (tileHashDoc); a listings bucket's by its prefix but the last character (one document for
 * one-character buckets, 32 for two).
 */
export function hashDocOf(rel: string): string | null {
  if (hashInMeta(rel)) return null;
  const m =
    /^(?:gazetteer\/(zip|names|city\/[A-Z]{2}|points|boundary|tiles)|(listings|pages|measurement))\/([^/]*)/.exec(rel);
  if (m === null) return null;
  const [, gazetteer, other, name = ''] = m;
  const first = name.slice(0, 1);
  if (gazetteer === 'zip') return `zip-${first}`;
  // A tile `<lat>_<lng>` by its latitude band: the tiles a point reads are mostly of one band.
  if (gazetteer === 'points') return `points-${name.split('_')[0]?.replace('-', 'm') ?? ''}`;
  if (gazetteer === 'tiles') return tileHashDoc(name.replace(/\.json$/, ''));
  if (gazetteer === 'names' || gazetteer?.startsWith('city/') === true) return `names-${first}`;
  if (gazetteer !== undefined) return gazetteer;
  if (other === 'listings') {
    const prefix = name.replace(/\.json$/, '');
    return prefix.length > 1 ? `listings-${prefix.slice(0, -1)}` : 'listings';
  }
  return other ?? null;
}

/**
 * The `hashes/` document of boundary tile `<lat>_<lng>`: its 20-degree square (`tiles-40_m100`), at most 25 tiles at 4
 * degrees (2.4 KB), and 22 documents over the tiles' box.
 */
function tileHashDoc(tile: string): string {
  const corner = (v: string): string => String(Math.floor(Number(v) / 20) * 20).replace('-', 'm');
  const [lat = '0', lng = '0'] = tile.split('_');
  return `tiles-${corner(lat)}_${corner(lng)}`;
}

/** The path of the `hashes/` document recording the sha256 of `rel`, or null (see hashDocOf). */
export function hashDocPath(rel: string): string | null {
  const name = hashDocOf(rel);
  return name === null ? null : paths.hashes(name);
}

/**
 * The `hashes/` document recording the sha256 of the city document that holds normalised name `key` in any state: the
 * names document of the name's first character, which records every city document covering it (the generator's
 * hashDocs), so "City, ST" reads one hash document for its names and its city document.
 */
export function cityHashDoc(key: string): string {
  return paths.hashes(`names-${cityBucket(key)}`);
}
