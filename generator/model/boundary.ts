/**
 * The boundary documents of a version (docs/SITE-FORMAT.md, "Boundaries"): where a point is. The 50 states, DC, Puerto
 * Rico and the other US territories from `us-atlas` (U.S. Census Bureau cartographic boundaries, 2017), the countries
 * from `world-atlas` (Natural Earth 1:50m), both TopoJSON decoded with `topojson-client`. Coordinates are rounded
 * (states to 1e-4 degrees, about 11 m; countries to 1e-3, which only name a place already found outside the US).
 * Deterministic: same packages, same documents.
 */
import { createRequire } from 'node:module';
import { geoBounds } from 'd3-geo';
import { feature } from 'topojson-client';
import type { Topology, GeometryCollection } from 'topojson-specification';
import type { Feature, MultiPolygon, Polygon } from 'geojson';
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import { US_STATES } from '../../shim/places/state-names.ts';
import { normaliseCityName, type BoundaryIndexT, type BoundaryRegionT } from '../../shim/format/site-format.ts';

const require = createRequire(import.meta.url);

/** Where the boundaries come from, as the index records it (and /terms lists). */
export const BOUNDARY_SOURCES = [
  'U.S. Census Bureau cartographic boundary files, 2017 (public domain), via the us-atlas package (ISC)',
  'Natural Earth 1:50m admin 0 countries (public domain), via the world-atlas package (ISC)',
];

/** us-atlas names of the US areas outside the service, with their USPS codes. */
const TERRITORIES: Readonly<Record<string, string>> = {
  'American Samoa': 'AS',
  Guam: 'GU',
  'Commonwealth of the Northern Mariana Islands': 'MP',
  'United States Virgin Islands': 'VI',
};

type Region = BoundaryIndexT['regions'][number];

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A feature's polygons as flat rings, rounded, consecutive repeats dropped. */
function flatPolygons(f: Feature<Polygon | MultiPolygon>, digits: number): number[][][] {
  const polys = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates;
  return polys.map((rings) =>
    rings.map((ring) => {
      const out: number[] = [];
      for (const [x, y] of ring) {
        const lng = round(x ?? 0, digits);
        const lat = round(y ?? 0, digits);
        if (out.length >= 2 && out[out.length - 2] === lng && out[out.length - 1] === lat) continue;
        out.push(lng, lat);
      }
      return out;
    }),
  );
}

function bboxOf(f: Feature<Polygon | MultiPolygon>): [number, number, number, number] {
  const [[w, s], [e, n]] = geoBounds(f);
  // Outward to the rounding, so the box holds the rounded polygons too.
  return [Math.floor(w * 1e3) / 1e3, Math.floor(s * 1e3) / 1e3, Math.ceil(e * 1e3) / 1e3, Math.ceil(n * 1e3) / 1e3];
}

function featuresOf(file: string, object: string): Feature<Polygon | MultiPolygon, { name: string }>[] {
  const topo = require(file) as Topology;
  const collection = topo.objects[object] as GeometryCollection<{ name: string }>;
  return (feature(topo, collection) as unknown as { features: Feature<Polygon | MultiPolygon, { name: string }>[] })
    .features;
}

/** The boundary index and one document per region, keyed by region key, sorted. */
export function buildBoundaries(): { index: BoundaryIndexT; regions: Map<string, BoundaryRegionT> } {
  const codeOfState = new Map(Object.entries(US_STATES).map(([code, name]) => [name, code]));
  const us: Region[] = [];
  const countries: Region[] = [];
  const waters: Region[] = [];
  const regions = new Map<string, BoundaryRegionT>();
  const add = (
    list: Region[],
    info: Omit<Region, 'bbox'>,
    f: Feature<Polygon | MultiPolygon>,
    digits: number,
  ): void => {
    if (f.geometry === null) return;
    list.push({ ...info, bbox: bboxOf(f) });
    regions.set(info.key, {
      schema_version: SCHEMA_VERSIONS.gazetteer,
      key: info.key,
      polygons: flatPolygons(f, digits),
    });
  };
  for (const f of featuresOf('us-atlas/states-10m.json', 'states')) {
    const name = f.properties.name;
    const state = codeOfState.get(name);
    const territory = TERRITORIES[name];
    if (state !== undefined) add(us, { key: `us-${state}`, name, kind: 'state', code: state }, f, 4);
    else if (territory !== undefined)
      add(us, { key: `us-${territory}`, name, kind: 'territory', code: territory }, f, 4);
    else throw new Error(`us-atlas: unknown state ${JSON.stringify(name)}`);
  }
  for (const f of featuresOf('world-atlas/countries-50m.json', 'countries')) {
    const id = typeof f.id === 'string' && /^\d+$/.test(f.id) ? f.id : '';
    const key = `c-${id !== '' ? id : normaliseCityName(f.properties.name)}`;
    // The US at 1:50m holds its lakes and rivers (the Census states stop at the shore): its waters, read last.
    if (id === '840') add(waters, { key, name: 'United States waters', kind: 'us_waters', code: id }, f, 3);
    else add(countries, { key, name: f.properties.name, kind: 'country', code: id }, f, 3);
  }
  const byKey = (a: Region, b: Region): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  us.sort((a, b) => Number(a.kind === 'territory') - Number(b.kind === 'territory') || byKey(a, b));
  countries.sort(byKey);
  return {
    index: {
      schema_version: SCHEMA_VERSIONS.gazetteer,
      sources: BOUNDARY_SOURCES,
      regions: [...us, ...countries, ...waters],
    },
    regions: new Map([...regions].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))),
  };
}
