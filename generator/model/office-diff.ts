/**
 * Two lists of stored offices compared office by office (pure): added, removed, changed listing fields, flag changes
 * (profile_type, sponsored) and map-visibility moves. The changes document and `audit diff` both use it.
 */
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
/** Fields that are the measurement, reported as visibility moves rather than as changes of the listing. */
export const MEASUREMENT_FIELDS = new Set<string>(['metro', 'visibility', 'brand']);
/** Operator flags: shown for transparency, never affecting order. */
const FLAG_FIELDS = ['profile_type', 'sponsored'] as const;

/** One office, briefly. */
export interface OfficeBrief {
  listing_id: string;
  firm_id: string;
  name: string;
  city: string;
  state: string;
  metro: string | null;
}

/** An office present in both versions whose listing fields differ. */
export interface OfficeChange extends OfficeBrief {
  fields: { field: string; old: unknown; new: unknown }[];
}

/** A flag of an office's firm that changed. */
export interface FlagChange extends OfficeBrief {
  field: (typeof FLAG_FIELDS)[number];
  old: string | boolean;
  new: string | boolean;
}

/** An office's measured shares (percent) in both versions and how far they moved (percentage points). */
export interface VisibilityMove extends OfficeBrief {
  old_metro: string | null;
  old_top3: number | null;
  new_top3: number | null;
  old_appears: number | null;
  new_appears: number | null;
  /** new - old, a missing measurement counting as 0. */
  delta_top3: number;
  delta_appears: number;
  /** max(|delta_top3|, |delta_appears|): the size the list is sorted by. */
  move: number;
}

/** A version as the diff names it. */
export interface DiffSide {
  site: string;
  version: string;
  week: string;
  offices: number;
  firms: number;
  tree_problems: string[];
}

/** The whole diff; every list is complete (the text report abbreviates). */
export interface SiteDiff {
  old: DiffSide;
  new: DiffSide;
  threshold_pct_points: number;
  counts: {
    added: number;
    removed: number;
    changed: number;
    unchanged: number;
    flag_changes: number;
    visibility_moves: number;
    visibility_changed: number;
    firms_added: number;
    firms_removed: number;
  };
  added: OfficeBrief[];
  removed: OfficeBrief[];
  changed: OfficeChange[];
  flag_changes: FlagChange[];
  visibility_moves: VisibilityMove[];
}

function brief(o: StoredOfficeT): OfficeBrief {
  return { listing_id: o.listing_id, firm_id: o.firm_id, name: o.name, city: o.city, state: o.state, metro: o.metro };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Diff two full office lists (pure). `threshold` in percentage points: moves at least this big, and every change of measuring metro, are listed. */
export function diffOffices(
  oldOffices: readonly StoredOfficeT[],
  newOffices: readonly StoredOfficeT[],
  threshold: number,
): Omit<SiteDiff, 'old' | 'new'> {
  const before = new Map(oldOffices.map((o) => [o.listing_id, o]));
  const after = new Map(newOffices.map((o) => [o.listing_id, o]));
  const added = newOffices.filter((o) => !before.has(o.listing_id)).map(brief);
  const removed = oldOffices.filter((o) => !after.has(o.listing_id)).map(brief);
  const changed: OfficeChange[] = [];
  const flagChanges: FlagChange[] = [];
  const moves: VisibilityMove[] = [];
  let visibilityChanged = 0;
  for (const n of newOffices) {
    const o = before.get(n.listing_id);
    if (o === undefined) continue;
    const fields = fieldsDiffering(o, n).filter((f) => !MEASUREMENT_FIELDS.has(f));
    if (fields.length > 0)
      changed.push({ ...brief(n), fields: fields.map((f) => ({ field: f, old: o[f], new: n[f] })) });
    for (const f of FLAG_FIELDS) if (o[f] !== n[f]) flagChanges.push({ ...brief(n), field: f, old: o[f], new: n[f] });
    if (fieldsDiffering(o, n).some((f) => MEASUREMENT_FIELDS.has(f))) visibilityChanged++;
    const dTop3 = round1((n.visibility?.top3_share_pct ?? 0) - (o.visibility?.top3_share_pct ?? 0));
    const dAppears = round1((n.visibility?.appears_share_pct ?? 0) - (o.visibility?.appears_share_pct ?? 0));
    const move = Math.max(Math.abs(dTop3), Math.abs(dAppears));
    if (move >= threshold || o.metro !== n.metro) {
      moves.push({
        ...brief(n),
        old_metro: o.metro,
        old_top3: o.visibility?.top3_share_pct ?? null,
        new_top3: n.visibility?.top3_share_pct ?? null,
        old_appears: o.visibility?.appears_share_pct ?? null,
        new_appears: n.visibility?.appears_share_pct ?? null,
        delta_top3: dTop3,
        delta_appears: dAppears,
        move,
      });
    }
  }
  moves.sort((a, b) => b.move - a.move || (a.listing_id < b.listing_id ? -1 : 1));
  const firmsBefore = new Set(oldOffices.map((o) => o.firm_id));
  const firmsAfter = new Set(newOffices.map((o) => o.firm_id));
  const both = newOffices.length - added.length;
  return {
    threshold_pct_points: threshold,
    counts: {
      added: added.length,
      removed: removed.length,
      changed: changed.length,
      unchanged: both - changed.length,
      flag_changes: flagChanges.length,
      visibility_moves: moves.length,
      visibility_changed: visibilityChanged,
      firms_added: [...firmsAfter].filter((f) => !firmsBefore.has(f)).length,
      firms_removed: [...firmsBefore].filter((f) => !firmsAfter.has(f)).length,
    },
    added,
    removed,
    changed,
    flag_changes: flagChanges,
    visibility_moves: moves,
  };
}

/** Names of the top-level fields whose JSON differs between two records of one office. */
export function fieldsDiffering(a: StoredOfficeT, b: StoredOfficeT): (keyof StoredOfficeT)[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof StoredOfficeT>;
  return [...names].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}
