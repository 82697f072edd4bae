/**
 * Where a point is, from the boundary documents of the served version (gazetteer/boundary/): in one of the 50 states,
 * DC or Puerto Rico (covered), in another US territory, in a named country, or none of them (open sea). Containment is
 * d3-geo's spherical test, so a polygon across 180° (Alaska's Aleutians, Russia) is read right.
 */
import { geoContains } from 'd3-geo';
import type { MultiPolygon } from 'geojson';
import { readRequired, type SiteReader } from './reader.ts';
import { BoundaryIndex, BoundaryRegion, keys, type BoundaryIndexT, type BoundaryRegionT } from './site-format.ts';

/** Where a point is: `state` holds the USPS code of a covered state (DC and PR included). */
export type PointPlace =
  | { kind: 'state'; state: string; name: string }
  | { kind: 'territory'; state: string; name: string }
  | { kind: 'country'; name: string }
  | { kind: 'none' };

const LISTED = 'is listed in meta.json but missing';

/** A region's polygons as GeoJSON, with each polygon's box, built once per parsed document. */
interface Shapes {
  polygons: { geometry: MultiPolygon; bbox: [number, number, number, number] }[];
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
  for (const rings of doc.polygons) {
    const coordinates = rings.map((flat) => {
      const ring: [number, number][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) ring.push([flat[i] ?? 0, flat[i + 1] ?? 0]);
      return ring;
    });
    const outer = coordinates[0] ?? [];
    const lngs = outer.map((p) => p[0]);
    const lats = outer.map((p) => p[1]);
    let w = Math.min(...lngs);
    let e = Math.max(...lngs);
    // A ring crossing 180° (its longitudes spanning more than half the globe): its box wraps.
    if (e - w > 180) {
      w = Math.min(...lngs.filter((x) => x > 0));
      e = Math.max(...lngs.filter((x) => x < 0));
    }
    out.polygons.push({
      geometry: { type: 'MultiPolygon', coordinates: [coordinates] },
      bbox: [w, Math.min(...lats), e, Math.max(...lats)],
    });
  }
  shapes.set(doc, out);
  return out;
}

async function contains(reader: SiteReader, key: string, lat: number, lng: number): Promise<boolean> {
  const doc = await readRequired(reader, keys.boundary(reader.version, key), BoundaryRegion, LISTED);
  for (const p of shapesOf(doc).polygons)
    if (inBox(p.bbox, lat, lng) && geoContains(p.geometry, [lng, lat])) return true;
  return false;
}

/**
 * Where (lat, lng) is, or undefined when the version has no boundary documents (versions before them: the caller
 * falls back to the ZIP points). States are tried first, so a US point reads no country.
 */
export async function placeOfPoint(reader: SiteReader, lat: number, lng: number): Promise<PointPlace | undefined> {
  if (reader.meta.gazetteer.boundary === undefined) return undefined;
  const index: BoundaryIndexT = await readRequired(reader, keys.boundaryIndex(reader.version), BoundaryIndex, LISTED);
  for (const r of index.regions) {
    if (!inBox(r.bbox, lat, lng) || !(await contains(reader, r.key, lat, lng))) continue;
    if (r.kind === 'state') return { kind: 'state', state: r.code, name: r.name };
    if (r.kind === 'territory') return { kind: 'territory', state: r.code, name: r.name };
    return { kind: 'country', name: r.name };
  }
  return { kind: 'none' };
}
