/**
 * Where a point is, from the boundary documents of the served version (gazetteer/boundary/): in one of the 50 states,
 * DC or Puerto Rico (covered), in another US territory, in a named country, or none of them (open sea). Containment is
 * planar in longitude and latitude (point-in-polygon-hao): the boundaries' edges are short, and the long straight
 * ones follow parallels (the 49th), which a planar edge follows exactly. A ring across 180° is tested in 0-360°.
 */
import pointInPolygon from 'point-in-polygon-hao';
import { readRequired, type SiteReader } from '../search/reader.ts';
import { tilePolygonHolds } from './boundary-tile.ts';
import {
  BoundaryIndex,
  BoundaryRegion,
  BoundaryTile,
  boundaryTile,
  inTiledBox,
  keys,
  type BoundaryIndexT,
  type BoundaryRegionT,
} from '../format/site-format.ts';

/** Where a point is: `state` holds the USPS code of a covered state (DC and PR included). */
export type PointPlace =
  | { kind: 'state'; state: string; name: string }
  | { kind: 'territory'; state: string; name: string }
  | { kind: 'country'; name: string }
  /** In no state, territory or other country, but inside the US's own outline with its lakes and rivers. */
  | { kind: 'us_waters' }
  /** In no state, territory or other country, and near enough the US coast (`coastal`) that its outline was not read. */
  | { kind: 'coast' }
  | { kind: 'none' };

const LISTED = 'is listed in meta.json but missing';

/** A region's polygons as rings of [lng, lat], each with its box; `wrapped` ones across 180° in 0-360° longitudes. */
interface Shapes {
  polygons: { rings: number[][][]; bbox: [number, number, number, number]; wrapped: boolean }[];
}
const shapes = new WeakMap<BoundaryRegionT, Shapes>();

function inBox(b: readonly [number, number, number, number], lat: number, lng: number): boolean {
  const [w, s, e, n] = b;
  if (lat < s || lat > n) return false;
  // A box across 180° has west > east.
  return w <= e ? lng >= w && lng <= e : lng >= w || lng <= e;
}

function shapesOf(doc: BoundaryRegionT): Shapes {
  let out = shapes.get(doc);
  if (out !== undefined) return out;
  out = { polygons: [] };
  for (const flat of doc.polygons) {
    let lngs: number[] = [];
    const lats: number[] = [];
    for (const ring of flat)
      for (let i = 0; i + 1 < ring.length; i += 2) {
        lngs.push(ring[i] ?? 0);
        lats.push(ring[i + 1] ?? 0);
      }
    // Longitudes spanning more than half the globe: the polygon crosses 180°, so it is kept in 0-360°.
    const wrapped = Math.max(...lngs) - Math.min(...lngs) > 180;
    const fix = (x: number): number => (wrapped && x < 0 ? x + 360 : x);
    if (wrapped) lngs = lngs.map(fix);
    const rings = flat.map((ring) => {
      const points: number[][] = [];
      for (let i = 0; i + 1 < ring.length; i += 2) points.push([fix(ring[i] ?? 0), ring[i + 1] ?? 0]);
      return points;
    });
    out.polygons.push({
      rings,
      bbox: [Math.min(...lngs), Math.min(...lats), Math.max(...lngs), Math.max(...lats)],
      wrapped,
    });
  }
  shapes.set(doc, out);
  return out;
}

function regionDoc(reader: SiteReader, key: string): Promise<BoundaryRegionT> {
  return readRequired(reader, keys.boundary(reader.version, key), BoundaryRegion, LISTED);
}

function contains(doc: BoundaryRegionT, lat: number, lng: number): boolean {
  for (const p of shapesOf(doc).polygons) {
    const x = p.wrapped && lng < 0 ? lng + 360 : lng;
    // On an edge (0) counts as inside: a point on the border line is the state's.
    if (inBox(p.bbox, lat, x) && pointInPolygon([x, lat], p.rings) !== false) return true;
  }
  return false;
}

/** What region `r` makes of a point it holds. */
function placeIn(r: BoundaryIndexT['regions'][number]): PointPlace {
  if (r.kind === 'state') return { kind: 'state', state: r.code, name: r.name };
  if (r.kind === 'territory') return { kind: 'territory', state: r.code, name: r.name };
  if (r.kind === 'us_waters') return { kind: 'us_waters' };
  return { kind: 'country', name: r.name };
}

/**
 * Where (lat, lng) is, from the one boundary tile holding it (gazetteer/tiles/, boundary-tile.ts): the first region in
 * the index's order whose box and polygons hold the point, as the whole documents answer; 'none' when no tile is
 * recorded there (no region meets it).
 */
async function placeInTile(reader: SiteReader, degrees: number, lat: number, lng: number): Promise<PointPlace> {
  const tile = await reader.json(keys.boundaryTile(reader.version, boundaryTile(lat, lng, degrees)), BoundaryTile);
  for (const r of tile?.regions ?? [])
    if (inBox(r.bbox, lat, lng) && r.polygons.some((p) => tilePolygonHolds(p, lat, lng))) return placeIn(r);
  return { kind: 'none' };
}

/**
 * Where (lat, lng) is, or undefined when the version has no boundary documents (versions before them: the caller
 * falls back to the ZIP points). A version with boundary tiles answers a point in their box from its tile alone
 * (never 'coast').
 * Otherwise states are tried first, so a US point reads no country; US waters last. `noState` is told when no state
 * holds the point, before the other regions are read (the caller may start its own reads). `coastal`, when given, is
 * asked before the US's own outline is read (87 KB, for a point no other region holds): true means the caller decides
 * such a point the same whether or not the outline holds it ('coast', nothing more read).
 */
export async function placeOfPoint(
  reader: SiteReader,
  lat: number,
  lng: number,
  noState?: () => void,
  coastal?: () => Promise<boolean>,
): Promise<PointPlace | undefined> {
  const tiles = reader.meta.gazetteer.boundary_tiles;
  if (tiles !== undefined && inTiledBox(tiles, lat, lng)) return placeInTile(reader, tiles.degrees, lat, lng);
  if (reader.meta.gazetteer.boundary === undefined) return undefined;
  const index: BoundaryIndexT = await readRequired(reader, keys.boundaryIndex(reader.version), BoundaryIndex, LISTED);
  const boxed = index.regions.filter((r) => inBox(r.bbox, lat, lng));
  // The states whose box holds the point are read at once (one round trip, not one each); the other regions only
  // when no state holds it.
  const states = new Map(
    boxed.filter((r) => r.kind === 'state').map((r) => [r.key, regionDoc(reader, r.key)] as const),
  );
  for (const read of states.values()) read.catch(() => undefined);
  let others: Map<string, Promise<BoundaryRegionT>> | null = null;
  for (const r of boxed) {
    if (r.kind !== 'state' && others === null) {
      // No state holds it: the other regions whose box holds it are read at once too (one more round trip); the US
      // outline with them unless `coastal` may make it needless.
      noState?.();
      const now = boxed.filter((o) => o.kind !== 'state' && (coastal === undefined || o.kind !== 'us_waters'));
      others = new Map(now.map((o) => [o.key, regionDoc(reader, o.key)] as const));
      for (const read of others.values()) read.catch(() => undefined);
    }
    if (r.kind === 'us_waters' && coastal !== undefined && (await coastal())) return { kind: 'coast' };
    if (!contains(await (states.get(r.key) ?? others?.get(r.key) ?? regionDoc(reader, r.key)), lat, lng)) continue;
    return placeIn(r);
  }
  return { kind: 'none' };
}
