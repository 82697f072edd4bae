/** The week's measurement per metro as the metro pages show it: top-three concentration and promoted-firm reach per grid point. */
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import type { Firm } from '../model/firms.ts';
import type { MetroT, SampleRecordT } from '../inputs/schema.ts';
import { pct1 } from '../model/visibility.ts';

/** One grid point: how many of its samples had a sponsored or enhanced firm in the top three. */
export interface GridPoint {
  id: string;
  lat: number;
  lng: number;
  samples: number;
  promoted: number;
}

/** One metro in one week. Shares are percent with one decimal. */
export interface MetroWeek {
  samples: number;
  gridPoints: number;
  /** Top-three positions that held any business (the denominator of the concentration shares). */
  slotsFilled: number;
  /** Distinct directory firms holding at least one top-three position. */
  firmsInTop3: number;
  /** Share of filled top-three positions held by the 1, 3 and 10 firms holding the most. */
  top1: number;
  top3: number;
  top10: number;
  /** Share of samples whose top three included a sponsored or enhanced firm. */
  promotedPct: number;
  points: GridPoint[];
}

/** What a metro page is drawn from. */
export interface MetroPageData {
  metro: MetroT;
  week: MetroWeek;
  /** The same figures for the previous week's samples, when that week's inputs exist. */
  previous: MetroWeek | null;
  /** top3_share_pct of every office measured in the metro, ascending. */
  officeShares: number[];
}

/** How a place id maps to its firm's flags; built once from this week's firms. */
export type FirmLookup = Map<string, { key: string; promoted: boolean }>;

/** Place id -> firm key and whether the firm is sponsored or has an enhanced profile. */
export function firmLookup(firms: readonly Firm[]): FirmLookup {
  const m: FirmLookup = new Map();
  for (const f of firms) {
    // One entry object per firm, shared by its offices (a million offices need not make a million).
    const entry = { key: f.key, promoted: f.sponsored || f.profileType === 'enhanced' };
    for (const o of f.offices) m.set(o.place.place_id, entry);
  }
  return m;
}

/** Accumulates one metro's samples, one at a time (so a week's samples need not be held). */
export class MetroAccumulator {
  private readonly points = new Map<string, GridPoint>();
  private readonly firmSlots = new Map<string, number>();
  private samples = 0;
  private slotsFilled = 0;
  private promoted = 0;

  private readonly lookup: FirmLookup;
  constructor(lookup: FirmLookup) {
    this.lookup = lookup;
  }

  add(s: SampleRecordT): void {
    let p = this.points.get(s.point_id);
    if (p === undefined)
      this.points.set(s.point_id, (p = { id: s.point_id, lat: s.lat, lng: s.lng, samples: 0, promoted: 0 }));
    p.samples++;
    this.samples++;
    let promoted = false;
    for (const placeId of s.ranked.slice(0, 3)) {
      this.slotsFilled++;
      const firm = this.lookup.get(placeId);
      if (firm === undefined) continue;
      this.firmSlots.set(firm.key, (this.firmSlots.get(firm.key) ?? 0) + 1);
      promoted ||= firm.promoted;
    }
    if (promoted) {
      p.promoted++;
      this.promoted++;
    }
  }

  result(): MetroWeek {
    const held = [...this.firmSlots.values()].sort((a, b) => b - a);
    const topShare = (k: number): number =>
      pct1(
        held.slice(0, k).reduce((a, b) => a + b, 0),
        this.slotsFilled,
      );
    const points = [...this.points.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      samples: this.samples,
      gridPoints: points.length,
      slotsFilled: this.slotsFilled,
      firmsInTop3: held.length,
      top1: topShare(1),
      top3: topShare(3),
      top10: topShare(10),
      promotedPct: pct1(this.promoted, this.samples),
      points,
    };
  }
}

/** One week's samples folded per metro slug. */
export function metroWeeks(
  metros: readonly MetroT[],
  samples: Iterable<SampleRecordT>,
  lookup: FirmLookup,
): Map<string, MetroWeek> {
  const acc = new Map(metros.map((m) => [m.slug, new MetroAccumulator(lookup)]));
  for (const s of samples) acc.get(s.metro)?.add(s);
  return new Map([...acc].map(([slug, a]) => [slug, a.result()]));
}

/** Every metro with samples this week, in metros.json order, with the office shares measured in it. */
export function metroPageData(
  metros: readonly MetroT[],
  current: Map<string, MetroWeek>,
  previous: Map<string, MetroWeek> | null,
  offices: readonly StoredOfficeT[],
): MetroPageData[] {
  const shares = new Map<string, number[]>();
  for (const o of offices) {
    if (o.metro === null || o.visibility === null) continue;
    let list = shares.get(o.metro);
    if (list === undefined) shares.set(o.metro, (list = []));
    list.push(o.visibility.top3_share_pct);
  }
  const out: MetroPageData[] = [];
  for (const metro of metros) {
    const week = current.get(metro.slug);
    if (week === undefined || week.samples === 0) continue;
    const prev = previous?.get(metro.slug);
    out.push({
      metro,
      week,
      previous: prev !== undefined && prev.samples > 0 ? prev : null,
      officeShares: (shares.get(metro.slug) ?? []).sort((a, b) => a - b),
    });
  }
  return out;
}
