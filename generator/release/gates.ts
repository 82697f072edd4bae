/** The release gates (README "Operating it"): pure checks of a week's facts against the live version; each fatal unless forced. */
import type { WeekFacts } from '../generate.ts';
import type { AnyMetaT } from '../site/published-meta.ts';

/** Miles an office may be from its ZIP's centroid (and from the nearest US ZIP at all). */
export const MAX_MILES_FROM_ZIP = 50;
/** Largest drop of offices, firms or samples against the live version, as a fraction. */
export const MAX_DROP = 0.1;
/** Largest drop of one metro's samples, grid points or offices against the live version, as a fraction. */
export const MAX_METRO_DROP = 0.5;
/** How many examples a failed gate lists. */
const EXAMPLES = 5;

/** Names of the gates, in the order they are checked. */
export const GATE_NAMES = [
  'inputs-present',
  'week-order',
  'counts-drop',
  'coordinates',
  'metro-coverage',
  'metro-drop',
  'corrections-known',
  'claimed-status',
] as const;
export type GateName = (typeof GATE_NAMES)[number];

/** One gate's outcome. */
export interface GateResult {
  gate: GateName;
  passed: boolean;
  /** What was checked, or what failed with a few examples. */
  detail: string;
}

/** One metro of the live version, for the per-metro drop gate (its coverage document's figures). */
export interface LiveMetro {
  offices: number;
  grid_points: number;
  grid_samples: number;
}

/** What the live version says, for the drop gates (null when nothing is live yet). */
export type LiveCounts = {
  version: string;
  /** The live version's ISO week (absent in a release record written before the week-order gate). */
  week?: string;
  offices: number;
  firms: number;
  samples: number;
  /** By metro slug; null when the live version's coverage document could not say. */
  metros?: Record<string, LiveMetro> | null;
} | null;

/** Offices, firms and samples of a published meta, with the live version's metros from its coverage document. */
export function liveCountsOf(
  meta: Pick<AnyMetaT, 'version' | 'week' | 'totals' | 'metros'>,
  metros: Record<string, LiveMetro> | null = null,
): NonNullable<LiveCounts> {
  const samples = Object.values(meta.metros).reduce((n, m) => n + m.grid_samples, 0);
  const { version, week, totals } = meta;
  return { version, week, offices: totals.offices, firms: totals.firms, samples, metros };
}

const R = 3958.8;
function miles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

const list = (items: readonly string[]): string =>
  `${items.slice(0, EXAMPLES).join('; ')}${items.length > EXAMPLES ? `; and ${items.length - EXAMPLES} more` : ''}`;

/** ZIP centroids bucketed by whole degree, to find the nearest US ZIP of a point. */
class ZipGrid {
  private readonly cells = new Map<string, [number, number][]>();
  readonly byZip = new Map<string, [number, number]>();
  constructor(zips: WeekFacts['zips']) {
    for (const doc of zips.values()) {
      for (const [zip, e] of Object.entries(doc.zips)) {
        this.byZip.set(zip, [e[0], e[1]]);
        const k = `${Math.floor(e[0])},${Math.floor(e[1])}`;
        let cell = this.cells.get(k);
        if (cell === undefined) this.cells.set(k, (cell = []));
        cell.push([e[0], e[1]]);
      }
    }
  }
  /** True when some ZIP centroid lies within `limit` miles of the point. */
  near(lat: number, lng: number, limit: number): boolean {
    const dLat = Math.ceil(limit / 69);
    const dLng = Math.ceil(limit / (69 * Math.max(0.05, Math.cos((Math.min(89, Math.abs(lat)) * Math.PI) / 180))));
    for (let i = Math.floor(lat) - dLat; i <= Math.floor(lat) + dLat; i++) {
      for (let j = Math.floor(lng) - dLng; j <= Math.floor(lng) + dLng; j++) {
        for (const [a, b] of this.cells.get(`${i},${j}`) ?? []) if (miles(lat, lng, a, b) <= limit) return true;
      }
    }
    return false;
  }
}

function inputsPresent(f: WeekFacts): GateResult {
  const missing: string[] = [];
  if (f.places === 0) missing.push('places.jsonl has no rows');
  if (f.samples === 0) missing.push('samples.jsonl has no rows');
  return {
    gate: 'inputs-present',
    passed: missing.length === 0,
    detail: missing.length === 0 ? `${f.places} places, ${f.samples} samples` : missing.join('; '),
  };
}

function countsDrop(f: WeekFacts, live: LiveCounts): GateResult {
  if (live === null) return { gate: 'counts-drop', passed: true, detail: 'nothing is live yet' };
  const now = { offices: f.offices.length, firms: f.firms, samples: f.samples };
  const drops: string[] = [];
  for (const k of ['offices', 'firms', 'samples'] as const) {
    if (live[k] > 0 && now[k] < live[k] * (1 - MAX_DROP))
      drops.push(`${k} ${live[k]} -> ${now[k]} (${(((now[k] - live[k]) / live[k]) * 100).toFixed(1)}%)`);
  }
  return {
    gate: 'counts-drop',
    passed: drops.length === 0,
    detail:
      drops.length === 0
        ? `against ${live.version}: offices ${live.offices} -> ${now.offices}, firms ${live.firms} -> ${now.firms}, samples ${live.samples} -> ${now.samples}`
        : `down more than ${MAX_DROP * 100}% against ${live.version}: ${drops.join(', ')}`,
  };
}

function coordinates(f: WeekFacts): GateResult {
  const grid = new ZipGrid(f.zips);
  const bad: Array<{ o: WeekFacts['offices'][number]; why: string }> = [];
  for (const o of f.offices) {
    if (!grid.near(o.lat, o.lng, MAX_MILES_FROM_ZIP)) {
      bad.push({ o, why: `outside the US (no US ZIP within ${MAX_MILES_FROM_ZIP} miles)` });
      continue;
    }
    if (o.zip === null) continue;
    const c = grid.byZip.get(o.zip);
    if (c === undefined) bad.push({ o, why: `ZIP ${o.zip} is not a known US ZIP` });
    else {
      const d = miles(o.lat, o.lng, c[0], c[1]);
      if (d > MAX_MILES_FROM_ZIP) bad.push({ o, why: `${d.toFixed(0)} miles from the centroid of its ZIP ${o.zip}` });
    }
  }
  // Named by the operator's place_id (places.jsonl), with the listing id the site uses.
  const shown = bad.slice(0, EXAMPLES);
  const placeIds = f.placeIdsOf?.(shown.map((b) => b.o.listing_id)) ?? new Map<string, string>();
  const lines = shown.map(({ o, why }) => {
    const place = placeIds.get(o.listing_id);
    return `${place !== undefined ? `place "${place}" (listing ${o.listing_id})` : `listing ${o.listing_id}`} "${o.name}" at ${o.lat},${o.lng}: ${why}`;
  });
  if (bad.length > EXAMPLES) lines.push(`and ${bad.length - EXAMPLES} more`);
  return {
    gate: 'coordinates',
    passed: bad.length === 0,
    detail:
      bad.length === 0
        ? `${f.offices.length} offices within ${MAX_MILES_FROM_ZIP} miles of their ZIP`
        : `${bad.length} office(s): ${lines.join('; ')}`,
  };
}

function metroCoverage(f: WeekFacts): GateResult {
  const bad: string[] = [];
  for (const m of f.metros) {
    const offices = f.offices.filter((o) => miles(o.lat, o.lng, m.center.lat, m.center.lng) <= m.radius_miles).length;
    const samples = f.samplesByMetro.get(m.slug) ?? 0;
    if (offices === 0 || samples === 0)
      bad.push(`${m.slug}: ${offices} offices within ${m.radius_miles} miles, ${samples} samples`);
  }
  return {
    gate: 'metro-coverage',
    passed: bad.length === 0,
    detail: bad.length === 0 ? `every one of ${f.metros.length} metros has offices and samples` : list(bad),
  };
}

/** A metro whose samples, grid points or measured offices fell by more than half against the live version. */
function metroDrop(f: WeekFacts, live: LiveCounts): GateResult {
  if (live === null) return { gate: 'metro-drop', passed: true, detail: 'nothing is live yet' };
  if (!live.metros) return { gate: 'metro-drop', passed: true, detail: `${live.version} has no per-metro figures` };
  const officesBy = new Map<string, number>();
  for (const o of f.offices) if (o.metro !== null) officesBy.set(o.metro, (officesBy.get(o.metro) ?? 0) + 1);
  const bad: string[] = [];
  for (const m of f.metros) {
    const was = live.metros[m.slug];
    if (was === undefined) continue;
    const sampling = f.metroSampling.get(m.slug);
    const now = {
      grid_samples: sampling?.samples ?? 0,
      grid_points: sampling?.gridPoints ?? 0,
      offices: officesBy.get(m.slug) ?? 0,
    };
    const drops = (['grid_samples', 'grid_points', 'offices'] as const)
      .filter((k) => was[k] > 0 && now[k] < was[k] * (1 - MAX_METRO_DROP))
      .map((k) => `${k} ${was[k]} -> ${now[k]}`);
    if (drops.length > 0) bad.push(`${m.slug}: ${drops.join(', ')}`);
  }
  return {
    gate: 'metro-drop',
    passed: bad.length === 0,
    detail:
      bad.length === 0
        ? `no metro's samples, grid points or offices fell by more than ${MAX_METRO_DROP * 100}% against ${live.version}`
        : `down more than ${MAX_METRO_DROP * 100}% against ${live.version}: ${list(bad)}`,
  };
}

function correctionsKnown(f: WeekFacts): GateResult {
  const bad = f.unknownCorrections.map(
    (c) => `corrections.jsonl:${c.line}: ${c.action} of unknown place "${c.place_id}"`,
  );
  return {
    gate: 'corrections-known',
    passed: bad.length === 0,
    detail: bad.length === 0 ? 'every correction names a listing of this week' : list(bad),
  };
}

function claimedStatus(f: WeekFacts): GateResult {
  const n = f.unclaimed.length;
  return {
    gate: 'claimed-status',
    passed: n === 0,
    detail:
      n === 0
        ? 'every office has a claimed status'
        : `${n} office(s) without a claimed status: ${list(f.unclaimed.map((id) => `place "${id}"`))}`,
  };
}

/**
 * The week is not older than the live one: releasing an older week would replace newer measurements with older ones
 * (the same week again, for a same-day correction, passes). Going back is a rollback to a released version.
 */
function weekOrder(f: WeekFacts, live: LiveCounts): GateResult {
  const gate = 'week-order';
  if (live?.week === undefined) return { gate, passed: true, detail: 'no live week to compare with' };
  // ISO weeks as YYYY-Www (zero-padded) sort as strings.
  if (f.week >= live.week) return { gate, passed: true, detail: `${f.week} is not older than the live ${live.week}` };
  return {
    gate,
    passed: false,
    detail: `${f.week} is older than the live version's week ${live.week} (${live.version}): releasing it would replace newer measurements with older ones; to go back to an earlier release use --rollback <version>`,
  };
}

/** Every gate's result for the week, in GATE_NAMES order. */
export function evaluateGates(f: WeekFacts, live: LiveCounts): GateResult[] {
  return [
    inputsPresent(f),
    weekOrder(f, live),
    countsDrop(f, live),
    coordinates(f),
    metroCoverage(f),
    metroDrop(f, live),
    correctionsKnown(f),
    claimedStatus(f),
  ];
}
