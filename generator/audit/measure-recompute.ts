/**
 * The auditor's own recomputation of map_visibility and brand_index from the published measurement documents, written
 * from the documented definitions (docs/CONTRACT.md, docs/AUDIT.md) and deliberately not sharing the generator's code.
 */
import { latLngToCell } from 'h3-js';
import type {
  MeasurementDocT,
  StoredBrandT,
  StoredFirmBrandT,
  StoredVisibilityT,
} from '../../shim/format/site-format.ts';

/** A metro's sampling as recomputed: distinct grid points, distinct queries, and their product. */
export interface Sampling {
  grid_points: number;
  queries: number;
  grid_samples: number;
}

/** What the recomputation needs of an office: where it is and which firm it belongs to. */
export interface OfficeRef {
  listing_id: string;
  firm_id: string;
  lat: number;
  lng: number;
}

/** The expected measurement fields of one office, as record chunks store them. */
export interface ExpectedOffice {
  metro: string | null;
  visibility: StoredVisibilityT | null;
  brand: StoredBrandT | null;
}

/** Everything recomputed. */
export interface Recomputed {
  sampling: Map<string, Sampling>;
  offices: Map<string, ExpectedOffice>;
  /** The firm's brand index per metro where it has measured offices. */
  brands: Map<string, Map<string, StoredBrandT>>;
  /** Ranked ids in the measurement that are no office of the version (each should be null instead). */
  unknownRanked: { metro: string; point_id: string; query: string; listing_id: string }[];
}

/** Percent with one decimal, rounded half up: 100 * part / whole. */
export function percent1(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;
}

/** Great-circle distance in miles (haversine, R = 3958.8). */
function miles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 3958.8 * Math.asin(Math.min(1, Math.sqrt(a)));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** [appeared, top three] counters per key and metro. */
class Tally {
  private readonly m = new Map<string, Map<string, [number, number]>>();
  add(key: string, metro: string, top3: boolean): void {
    let per = this.m.get(key);
    if (per === undefined) this.m.set(key, (per = new Map()));
    const c = per.get(metro) ?? [0, 0];
    c[0] += 1;
    if (top3) c[1] += 1;
    per.set(metro, c);
  }
  of(key: string): Map<string, [number, number]> | undefined {
    return this.m.get(key);
  }
}

/** Inputs of recompute, all read from the published version. */
export interface RecomputeInput {
  measurement: readonly MeasurementDocT[];
  offices: readonly OfficeRef[];
  /** Metro centres (coverage.json). */
  centres: ReadonlyMap<string, { lat: number; lng: number }>;
  /** coverage-cells.json: cell -> metros measuring it, and the resolution of its cells. */
  coverageCells: Readonly<Record<string, readonly string[]>>;
  coverageRes: number;
}

/**
 * Recompute from the definitions: a sample is one (grid point, query) of a metro; an office "appears" in a sample when
 * its listing id is in the ranked list and is "top 3" at positions 1-3; a firm counts once per sample, at its best
 * position. An office is measured in the metro whose samples hold it most often (ties: nearest metro centre, then slug);
 * never sampled, in the nearest-centred metro whose coverage cell holds it; otherwise (or when that metro has no samples)
 * it is unmeasured. Shares are of the metro's grid_samples. The brand index counts the firm in the metros where it has
 * measured offices, with offices_measured = how many.
 */
export function recompute(input: RecomputeInput): Recomputed {
  const firmOf = new Map(input.offices.map((o) => [o.listing_id, o.firm_id]));
  const sampling = new Map<string, Sampling>();
  const offices = new Tally();
  const firms = new Tally();
  const unknownRanked: Recomputed['unknownRanked'] = [];
  for (const doc of input.measurement) {
    sampling.set(doc.metro, {
      grid_points: doc.points.length,
      queries: doc.queries.length,
      grid_samples: doc.points.length * doc.queries.length,
    });
    for (const point of doc.points) {
      for (const query of Object.keys(point.ranked).sort(cmp)) {
        const best = new Map<string, number>();
        (point.ranked[query] ?? []).forEach((id, position) => {
          if (id === null) return;
          const firm = firmOf.get(id);
          if (firm === undefined) {
            unknownRanked.push({ metro: doc.metro, point_id: point.point_id, query, listing_id: id });
            return;
          }
          offices.add(id, doc.metro, position < 3);
          if (!best.has(firm)) best.set(firm, position);
        });
        for (const [firm, position] of best) firms.add(firm, doc.metro, position < 3);
      }
    }
  }

  const expected = new Map<string, ExpectedOffice>();
  const measuredIn = new Map<string, string>();
  for (const o of input.offices) {
    const byCentre = (a: string, b: string): number => {
      const ca = input.centres.get(a);
      const cb = input.centres.get(b);
      const da = ca === undefined ? Infinity : miles(o.lat, o.lng, ca.lat, ca.lng);
      const db = cb === undefined ? Infinity : miles(o.lat, o.lng, cb.lat, cb.lng);
      return da - db || cmp(a, b);
    };
    const seen = offices.of(o.listing_id);
    let metro: string | undefined;
    if (seen !== undefined) {
      const most = Math.max(...[...seen.values()].map(([appeared]) => appeared));
      metro = [...seen.keys()].filter((m) => seen.get(m)?.[0] === most).sort(byCentre)[0];
    } else {
      metro = [...(input.coverageCells[latLngToCell(o.lat, o.lng, input.coverageRes)] ?? [])].sort(byCentre)[0];
    }
    const s = metro === undefined ? undefined : sampling.get(metro);
    if (metro === undefined || s === undefined || s.grid_samples === 0) {
      expected.set(o.listing_id, { metro: null, visibility: null, brand: null });
      continue;
    }
    measuredIn.set(o.listing_id, metro);
    const [appeared, top3] = seen?.get(metro) ?? [0, 0];
    expected.set(o.listing_id, {
      metro,
      visibility: {
        top3_share_pct: percent1(top3, s.grid_samples),
        appears_share_pct: percent1(appeared, s.grid_samples),
      },
      brand: null,
    });
  }

  const measuredPerFirm = new Map<string, Map<string, number>>();
  for (const [id, metro] of measuredIn) {
    const firm = firmOf.get(id) as string;
    let per = measuredPerFirm.get(firm);
    if (per === undefined) measuredPerFirm.set(firm, (per = new Map()));
    per.set(metro, (per.get(metro) ?? 0) + 1);
  }
  const brands = new Map<string, Map<string, StoredBrandT>>();
  for (const [firm, per] of measuredPerFirm) {
    const out = new Map<string, StoredBrandT>();
    for (const metro of [...per.keys()].sort(cmp)) {
      const whole = sampling.get(metro)?.grid_samples ?? 0;
      const [appeared, top3] = firms.of(firm)?.get(metro) ?? [0, 0];
      out.set(metro, {
        top3_share_pct: percent1(top3, whole),
        appears_share_pct: percent1(appeared, whole),
        offices_measured: per.get(metro) ?? 0,
      });
    }
    brands.set(firm, out);
  }
  for (const o of input.offices) {
    const e = expected.get(o.listing_id);
    if (e?.metro) e.brand = brands.get(o.firm_id)?.get(e.metro) ?? null;
  }
  return { sampling, offices: expected, brands, unknownRanked };
}

/**
 * The brand index a firm document shows for one of its offices: the office's own metro when it is measured, else the
 * metro measuring most of the firm's offices (ties: the alphabetically first slug), else null.
 */
export function firmDocBrand(r: Recomputed, office: OfficeRef): StoredFirmBrandT | null {
  const own = r.offices.get(office.listing_id);
  if (own?.metro && own.brand) return { metro: own.metro, ...own.brand };
  let main: StoredFirmBrandT | null = null;
  for (const metro of [...(r.brands.get(office.firm_id)?.keys() ?? [])].sort(cmp)) {
    const b = r.brands.get(office.firm_id)?.get(metro) as StoredBrandT;
    if (main === null || b.offices_measured > main.offices_measured) main = { metro, ...b };
  }
  return main;
}
