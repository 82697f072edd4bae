/** Where offices can be: ZIP centroids grouped into regions (metros, or states when nationwide), weighted toward dense areas. */
import type { MetroT } from '../../generator/inputs/schema.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import { PointIndex, type Zip } from './gazetteer.ts';
import { WeightedSampler } from './rng.ts';

/** A group of ZIPs an office can be placed in, with a sampler over their weights. */
export interface Region {
  name: string;
  zips: number[];
  sampler: WeightedSampler;
}

/** ZIPs, their metro (index into metros, -1 outside every metro), and weighted regions. */
export interface World {
  zips: Zip[];
  zipIndex: PointIndex;
  zipMetro: Int16Array;
  /** Region index of each ZIP, -1 when it is in none. */
  zipRegion: Int16Array;
  metros: MetroT[];
  regions: Region[];
  regionSampler: WeightedSampler;
}

/** Miles from (lat, lng) to the nearest principal city of the metro (city centre = mean of its ZIPs), or to its centre. */
function principalCityCentres(metro: MetroT, zips: Zip[]): { lat: number; lng: number }[] {
  const centres: { lat: number; lng: number }[] = [];
  for (const entry of metro.principal_cities) {
    const [rawCity, state] = entry.split(', ');
    // GeoNames spells "St." out ("Saint Louis").
    const city = (rawCity ?? '').replace(/^St\. /, 'Saint ').toLowerCase();
    let lat = 0;
    let lng = 0;
    let n = 0;
    for (const z of zips) {
      if (
        z.state === state &&
        z.city.toLowerCase() === city &&
        haversineMiles(z.lat, z.lng, metro.center.lat, metro.center.lng) <= metro.radius_miles
      ) {
        lat += z.lat;
        lng += z.lng;
        n++;
      }
    }
    if (n > 0) centres.push({ lat: lat / n, lng: lng / n });
  }
  return centres.length > 0 ? centres : [metro.center];
}

/** Builds the world: metro regions only, or (nationwide) one region per state over every ZIP. */
export function buildWorld(zips: Zip[], metros: MetroT[], nationwide: boolean): World {
  const zipIndex = new PointIndex(
    zips.length,
    (i) => zips[i]!.lat,
    (i) => zips[i]!.lng,
    0.1,
  );
  const zipMetro = new Int16Array(zips.length).fill(-1);
  const cityBonus = new Float64Array(zips.length);
  metros.forEach((metro, m) => {
    const centres = principalCityCentres(metro, zips);
    const k = Math.ceil(metro.radius_miles / (6.9 * Math.cos((metro.center.lat * Math.PI) / 180))) + 1;
    for (const i of zipIndex.near(metro.center.lat, metro.center.lng, k)) {
      const z = zips[i]!;
      const d = haversineMiles(z.lat, z.lng, metro.center.lat, metro.center.lng);
      if (d > metro.radius_miles) continue;
      const prev = zipMetro[i]!;
      // A ZIP inside two metros belongs to the one whose centre is nearer (relative to its radius).
      if (prev >= 0) {
        const p = metros[prev]!;
        if (haversineMiles(z.lat, z.lng, p.center.lat, p.center.lng) / p.radius_miles <= d / metro.radius_miles)
          continue;
      }
      zipMetro[i] = m;
      let nearest = Infinity;
      for (const c of centres) nearest = Math.min(nearest, haversineMiles(z.lat, z.lng, c.lat, c.lng));
      // Law offices cluster downtown and near courthouses of the principal cities.
      cityBonus[i] = 3 * Math.exp(-nearest / 6);
    }
  });

  const regions: Region[] = [];
  const zipRegion = new Int16Array(zips.length).fill(-1);
  const regionWeights: number[] = [];
  const addRegion = (name: string, members: number[], weight: (i: number) => number): void => {
    if (members.length === 0) return;
    const sampler = new WeightedSampler(members.map(weight));
    for (const i of members) zipRegion[i] = regions.length;
    regions.push({ name, zips: members, sampler });
    regionWeights.push(sampler.total);
  };

  if (!nationwide) {
    metros.forEach((metro, m) => {
      const members: number[] = [];
      zipMetro.forEach((owner, i) => {
        if (owner === m) members.push(i);
      });
      addRegion(metro.slug, members, (i) => 1 + cityBonus[i]!);
    });
  } else {
    // Dense areas have many small ZIPs: the number of ZIP centroids within 10 miles stands in for population density.
    const density = new Float64Array(zips.length);
    zips.forEach((z, i) => {
      let n = 0;
      for (const j of zipIndex.near(z.lat, z.lng, 3)) {
        const o = zips[j]!;
        if (haversineMiles(z.lat, z.lng, o.lat, o.lng) <= 10) n++;
      }
      density[i] = n;
    });
    const byState = new Map<string, number[]>();
    zips.forEach((z, i) => {
      const list = byState.get(z.state);
      if (list) list.push(i);
      else byState.set(z.state, [i]);
    });
    for (const state of [...byState.keys()].sort()) {
      addRegion(
        state,
        byState.get(state)!,
        (i) => Math.pow(density[i]!, 0.7) * (zipMetro[i]! >= 0 ? 2 + cityBonus[i]! : 1),
      );
    }
  }
  return { zips, zipIndex, zipMetro, zipRegion, metros, regions, regionSampler: new WeightedSampler(regionWeights) };
}
