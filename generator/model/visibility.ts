/** Map visibility per office and brand index per firm, from the week's ranked grid samples (docs/CONTRACT.md, map_visibility). */
import { haversineMiles } from '../../shim/search/geo.ts';
import type { StoredBrandT, StoredVisibilityT } from '../../shim/format/site-format.ts';
import { metrosCovering } from './coverage.ts';
import type { CoverageMap } from './coverage.ts';
import type { Firm } from './firms.ts';
import type { MetroT, SampleRecordT } from '../inputs/schema.ts';

/** One metro's sampling this week. `samples` = grid_points x queries is the denominator of every share. */
export interface MetroStats {
  slug: string;
  gridPoints: number;
  queries: number;
  samples: number;
  /** Sample lines actually read (grid_samples in the coverage document). */
  sampleLines: number;
}

/** An office's measurement: the metro measuring it and its shares there (the rest is in MetroStats). */
export interface OfficeVisibility extends StoredVisibilityT {
  metro: string;
}

/** Visibility results, keyed by place id and by firm key. */
export interface Visibility {
  metros: Map<string, MetroStats>;
  /** Null when no metro measures the office. */
  office: Map<string, OfficeVisibility | null>;
  /** The firm's brand index in each metro where it has measured offices, by slug (sorted); absent when there is none. */
  brand: Map<string, Map<string, StoredBrandT>>;
  /** Ranked ids that are not offices in the directory (other businesses, or removed places); they keep their rank. */
  unlistedRanked: number;
}

/** Percent with one decimal, half up: 100 * n / d. */
export function pct1(n: number, d: number): number {
  return d === 0 ? 0 : Math.round((1000 * n) / d) / 10;
}

/** Counts of [appeared, ranked 1-3] per metro. */
type Counts = Map<string, [number, number]>;

function bump(counts: Counts, slug: string, top3: boolean): void {
  const c = counts.get(slug);
  if (c) {
    c[0]++;
    if (top3) c[1]++;
  } else counts.set(slug, [1, top3 ? 1 : 0]);
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Measure every office and firm. An office is measured in the metro whose samples contain it most often (ties: nearest
 * metro centre, then slug); an office never sampled is measured in the nearest-centred metro whose coverage cells contain
 * it, else it has no measurement (null). A metro with no samples measures nobody.
 */
export function measureVisibility(
  metros: readonly MetroT[],
  samples: readonly SampleRecordT[],
  firms: readonly Firm[],
  coverage: CoverageMap,
): Visibility {
  const metroBySlug = new Map(metros.map((m) => [m.slug, m]));
  const points = new Map<string, Set<string>>();
  const queries = new Map<string, Set<string>>();
  const lines = new Map<string, number>();
  for (const m of metros) {
    points.set(m.slug, new Set());
    queries.set(m.slug, new Set());
    lines.set(m.slug, 0);
  }

  const firmOfPlace = new Map<string, Firm>();
  for (const f of firms) for (const o of f.offices) firmOfPlace.set(o.place.place_id, f);
  const officeCounts = new Map<string, Counts>();
  const firmCounts = new Map<string, Counts>();
  let unlistedRanked = 0;

  for (const s of samples) {
    points.get(s.metro)?.add(s.point_id);
    queries.get(s.metro)?.add(s.query);
    lines.set(s.metro, (lines.get(s.metro) ?? 0) + 1);
    const firmRank = new Map<string, number>();
    s.ranked.forEach((placeId, i) => {
      const firm = firmOfPlace.get(placeId);
      if (firm === undefined) {
        unlistedRanked++;
        return;
      }
      let counts = officeCounts.get(placeId);
      if (!counts) officeCounts.set(placeId, (counts = new Map()));
      bump(counts, s.metro, i < 3);
      if (!firmRank.has(firm.key)) firmRank.set(firm.key, i);
    });
    // A firm counts once per sample, at its best-ranked office.
    for (const [key, best] of firmRank) {
      let counts = firmCounts.get(key);
      if (!counts) firmCounts.set(key, (counts = new Map()));
      bump(counts, s.metro, best < 3);
    }
  }

  const stats = new Map<string, MetroStats>();
  for (const m of metros) {
    const gridPoints = points.get(m.slug)?.size ?? 0;
    const q = queries.get(m.slug)?.size ?? 0;
    stats.set(m.slug, {
      slug: m.slug,
      gridPoints,
      queries: q,
      samples: gridPoints * q,
      sampleLines: lines.get(m.slug) ?? 0,
    });
  }

  const centreDistance = (slug: string, lat: number, lng: number): number => {
    const m = metroBySlug.get(slug);
    return m ? haversineMiles(lat, lng, m.center.lat, m.center.lng) : Infinity;
  };
  const nearestFirst = (lat: number, lng: number) => (a: string, b: string) =>
    centreDistance(a, lat, lng) - centreDistance(b, lat, lng) || byString(a, b);

  const office = new Map<string, OfficeVisibility | null>();
  const measuredIn = new Map<string, string>();
  for (const f of firms) {
    for (const o of f.offices) {
      const { place_id: id, lat, lng } = o.place;
      const counts = officeCounts.get(id);
      let slug: string | undefined;
      if (counts) {
        const best = Math.max(...[...counts.values()].map((c) => c[0]));
        slug = [...counts.keys()].filter((k) => counts.get(k)?.[0] === best).sort(nearestFirst(lat, lng))[0];
      } else {
        slug = [...metrosCovering(coverage, lat, lng)].sort(nearestFirst(lat, lng))[0];
      }
      const st = slug === undefined ? undefined : stats.get(slug);
      if (slug === undefined || st === undefined || st.samples === 0) {
        office.set(id, null);
        continue;
      }
      measuredIn.set(id, slug);
      const [appeared, top3] = counts?.get(slug) ?? [0, 0];
      office.set(id, {
        metro: slug,
        top3_share_pct: pct1(top3, st.samples),
        appears_share_pct: pct1(appeared, st.samples),
      });
    }
  }

  const brand = new Map<string, Map<string, StoredBrandT>>();
  for (const f of firms) {
    const measured = new Map<string, number>();
    for (const o of f.offices) {
      const slug = measuredIn.get(o.place.place_id);
      if (slug !== undefined) measured.set(slug, (measured.get(slug) ?? 0) + 1);
    }
    const perMetro = new Map<string, StoredBrandT>();
    for (const slug of [...measured.keys()].sort()) {
      const st = stats.get(slug) as MetroStats;
      const [appeared, top3] = firmCounts.get(f.key)?.get(slug) ?? [0, 0];
      perMetro.set(slug, {
        top3_share_pct: pct1(top3, st.samples),
        appears_share_pct: pct1(appeared, st.samples),
        offices_measured: measured.get(slug) ?? 0,
      });
    }
    // Most firms have no measured office; an absent entry means the same as an empty map and saves one Map per firm.
    if (perMetro.size > 0) brand.set(f.key, perMetro);
  }
  return { metros: stats, office, brand, unlistedRanked };
}
