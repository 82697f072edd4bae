/** Ranked samples: a grid over each metro's populated area, and per point and query the web map's top 20 place ids. */
import type { MetroT, SampleRecordT } from '../../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../../shim/contract/constants.ts';
import { haversineMiles } from '../../shim/search/geo.ts';
import { PointIndex } from './gazetteer.ts';
import type { Office } from './offices.ts';
import { hashNoise5, hashNormal } from './rng.ts';
import type { World } from './world.ts';

/** A grid point of one metro. */
export interface GridPoint {
  metro: number;
  pointId: string;
  lat: number;
  lng: number;
}

const MIN_POINTS = 100;
const MAX_POINTS = 250;
/** A grid point counts as populated when a ZIP centroid lies within this many miles. */
const POPULATED_MILES = 3;
const RANKED_LENGTH = 20;
/** Offices farther than this from a point are never ranked there (miles). */
const MAX_RANK_MILES = 30;
/** Enough nearby candidates that the top 20 are the same as from a full scan in practice. */
const MIN_CANDIDATES = 300;
/** The most prominent offices of each metro, always candidates anywhere in it. */
const STARS_PER_METRO = 12;
/** Score = log prominence - DISTANCE_WEIGHT * ln(1 + miles / DISTANCE_SCALE) + noise. */
const DISTANCE_WEIGHT = 1.5;
const DISTANCE_SCALE = 2;
const QUERY_NOISE = 0.45;
const SAMPLE_NOISE = 0.3;

function gridAt(metro: MetroT, m: number, spacing: number, world: World): GridPoint[] {
  const { lat: clat, lng: clng } = metro.center;
  const dLat = spacing / 69;
  const dLng = spacing / (69 * Math.cos((clat * Math.PI) / 180));
  const n = Math.ceil(metro.radius_miles / spacing);
  const out: GridPoint[] = [];
  for (let i = n; i >= -n; i--) {
    for (let j = -n; j <= n; j++) {
      const lat = Math.round((clat + i * dLat) * 1e5) / 1e5;
      const lng = Math.round((clng + j * dLng) * 1e5) / 1e5;
      if (haversineMiles(lat, lng, clat, clng) > metro.radius_miles) continue;
      const near = world.zipIndex.anyWithin(lat, lng, POPULATED_MILES, (z) =>
        haversineMiles(lat, lng, world.zips[z]!.lat, world.zips[z]!.lng),
      );
      if (near < 0) continue;
      out.push({ metro: m, pointId: `${metro.slug}-${String(out.length + 1).padStart(3, '0')}`, lat, lng });
    }
  }
  return out;
}

/** Grid points of every metro: 100-250 per metro by its number of ZIPs, on a regular grid (spacing in miles) within its radius. */
export function gridPoints(world: World): GridPoint[] {
  const zipCounts = world.metros.map((metro) => {
    let n = 0;
    for (const z of world.zips)
      if (haversineMiles(z.lat, z.lng, metro.center.lat, metro.center.lng) <= metro.radius_miles) n++;
    return n;
  });
  const lo = Math.min(...zipCounts);
  const hi = Math.max(...zipCounts);
  const all: GridPoint[] = [];
  world.metros.forEach((metro, m) => {
    const target = Math.round(
      MIN_POINTS + ((MAX_POINTS - MIN_POINTS) * ((zipCounts[m] ?? lo) - lo)) / Math.max(1, hi - lo),
    );
    let spacing = Math.sqrt((Math.PI * metro.radius_miles ** 2) / target);
    let best = gridAt(metro, m, spacing, world);
    // Populated land is less than the disk: shrink the spacing until the count is near the target.
    for (let iter = 0; iter < 8 && Math.abs(best.length - target) > target * 0.05; iter++) {
      spacing *= Math.sqrt(best.length / target);
      best = gridAt(metro, m, spacing, world);
    }
    while (best.length > MAX_POINTS) {
      spacing *= 1.02;
      best = gridAt(metro, m, spacing, world);
    }
    all.push(...best);
  });
  return all;
}

function better(score: number, uid: number, otherScore: number, otherUid: number): boolean {
  return score > otherScore || (score === otherScore && uid < otherUid);
}

/** Writes one SampleRecord per (point, query) for this week's offices, via `emit`, in point then query order. */
export function rankSamples(
  points: GridPoint[],
  offices: Office[],
  world: World,
  seed: number,
  week: number,
  emit: (r: SampleRecordT) => void,
): void {
  const cellDeg = 0.03;
  // Which metros (and their surroundings) each ZIP lies in; offices sit within half a mile of their ZIP's centroid.
  const inMetro = world.metros.map((m) =>
    world.zips.map((z) => haversineMiles(z.lat, z.lng, m.center.lat, m.center.lng) <= m.radius_miles),
  );
  const nearMetro = world.zips.map((z) =>
    world.metros.some(
      (m) => haversineMiles(z.lat, z.lng, m.center.lat, m.center.lng) <= m.radius_miles + MAX_RANK_MILES,
    ),
  );
  const near = offices.filter((o) => nearMetro[o.zip]);
  const index = new PointIndex(
    near.length,
    (i) => near[i]!.lat,
    (i) => near[i]!.lng,
    cellDeg,
  );
  const stars = world.metros.map((_, m) => {
    const inside = near.filter((o) => inMetro[m]![o.zip]);
    return inside.sort((a, b) => b.logProm - a.logProm || a.uid - b.uid).slice(0, STARS_PER_METRO);
  });
  // Each office's standing per query is stable across points and weeks.
  const queryNoise = new Float64Array(near.length * MEASURED_QUERIES.length);
  near.forEach((o, i) =>
    MEASURED_QUERIES.forEach(
      (_, q) => (queryNoise[i * MEASURED_QUERIES.length + q] = QUERY_NOISE * hashNormal(seed, o.uid, q)),
    ),
  );
  const stamp = new Int32Array(near.length).fill(-1);
  const topScore = new Float64Array(RANKED_LENGTH);
  const topUid = new Float64Array(RANKED_LENGTH);
  const topPos = new Int32Array(RANKED_LENGTH);
  const nearPos = new Map<number, number>();
  near.forEach((o, i) => nearPos.set(o.uid, i));
  points.forEach((p, pi) => {
    const cellMiles = 69 * cellDeg * Math.cos((p.lat * Math.PI) / 180);
    const cand: number[] = [];
    for (let k = 0; k * cellMiles <= MAX_RANK_MILES + cellMiles; k++) {
      for (const i of index.ring(p.lat, p.lng, k)) {
        stamp[i] = pi;
        cand.push(i);
      }
      if (cand.length >= MIN_CANDIDATES && k >= 1) break;
    }
    for (const o of stars[p.metro] ?? []) {
      const i = nearPos.get(o.uid)!;
      if (stamp[i] !== pi) cand.push(i);
    }
    const dist: number[] = [];
    const inRange: number[] = [];
    for (const i of cand) {
      const o = near[i]!;
      const d = haversineMiles(p.lat, p.lng, o.lat, o.lng);
      if (d <= MAX_RANK_MILES) {
        inRange.push(i);
        dist.push(d);
      }
    }
    const base = inRange.map((i, j) => near[i]!.logProm - DISTANCE_WEIGHT * Math.log1p(dist[j]! / DISTANCE_SCALE));
    MEASURED_QUERIES.forEach((query, q) => {
      // Top RANKED_LENGTH by score (ties by uid), kept sorted by insertion: candidates are few hundred, the list 20.
      let n = 0;
      inRange.forEach((i, j) => {
        const o = near[i]!;
        const score =
          base[j]! + queryNoise[i * MEASURED_QUERIES.length + q]! + SAMPLE_NOISE * hashNoise5(seed, week, pi, q, o.uid);
        if (n === RANKED_LENGTH && !better(score, o.uid, topScore[n - 1]!, topUid[n - 1]!)) return;
        let at = n < RANKED_LENGTH ? n++ : n - 1;
        while (at > 0 && better(score, o.uid, topScore[at - 1]!, topUid[at - 1]!)) {
          topScore[at] = topScore[at - 1]!;
          topUid[at] = topUid[at - 1]!;
          topPos[at] = topPos[at - 1]!;
          at--;
        }
        topScore[at] = score;
        topUid[at] = o.uid;
        topPos[at] = i;
      });
      const ranked: string[] = [];
      for (let r = 0; r < n; r++) ranked.push(near[topPos[r]!]!.placeId);
      emit({ metro: world.metros[p.metro]!.slug, point_id: p.pointId, lat: p.lat, lng: p.lng, query, ranked });
    });
  });
}
