/**
 * `audit diff`: what changed between two published versions, office by office: added, removed, changed listing fields,
 * flag changes (profile_type, sponsored) and map-visibility moves, from a full scan of each version's office records.
 */
import { hoursText } from '../../shim/core/hours.ts';
import type { StoredOfficeT } from '../../shim/core/site-format.ts';
import { fieldsDiffering, scanOffices } from '../site/scan.ts';
import { openSite, type SiteLocation } from '../site/site.ts';

/** Fields that are the measurement, reported as visibility moves rather than as changes of the listing. */
const MEASUREMENT_FIELDS = new Set<string>(['metro', 'visibility', 'brand']);
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
  shard_problems: string[];
}

/** The whole diff; every list is complete (the text report abbreviates). */
export interface SiteDiff {
  old: DiffSide;
  new: DiffSide;
  threshold_pct_points: number;
  counts: { added: number; removed: number; changed: number; unchanged: number; flag_changes: number; visibility_moves: number; visibility_changed: number; firms_added: number; firms_removed: number };
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
export function diffOffices(oldOffices: readonly StoredOfficeT[], newOffices: readonly StoredOfficeT[], threshold: number): Omit<SiteDiff, 'old' | 'new'> {
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
    if (fields.length > 0) changed.push({ ...brief(n), fields: fields.map((f) => ({ field: f, old: o[f], new: n[f] })) });
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

/** Options of diffSites. */
export interface DiffOptions {
  oldVersion?: string;
  newVersion?: string;
  /** Percentage points (default 1). */
  threshold?: number;
  log?: (line: string) => void;
}

/** Read both versions (every record chunk of each) and diff them. */
export async function diffSites(oldLoc: SiteLocation, newLoc: SiteLocation, opts: DiffOptions = {}): Promise<SiteDiff> {
  const side = async (loc: SiteLocation, version: string | undefined): Promise<{ side: DiffSide; offices: StoredOfficeT[] }> => {
    const site = await openSite(loc, version);
    opts.log?.(`diff: reading ${site.label} version ${site.version}`);
    const scan = await scanOffices(site, opts.log === undefined ? {} : { log: opts.log });
    return {
      side: { site: site.label, version: site.version, week: site.meta.week, offices: scan.offices.length, firms: new Set(scan.offices.map((o) => o.firm_id)).size, shard_problems: scan.problems },
      offices: scan.offices,
    };
  };
  const a = await side(oldLoc, opts.oldVersion);
  const b = await side(newLoc, opts.newVersion);
  return { old: a.side, new: b.side, ...diffOffices(a.offices, b.offices, opts.threshold ?? 1) };
}

function label(o: OfficeBrief): string {
  return `${o.listing_id}  ${o.name}, ${o.city} ${o.state}${o.metro === null ? '' : ` [${o.metro}]`}`;
}

/** Stored hours as the API shows them, one day after another ("Mon 9:00 AM-5:00 PM, Tue ..."), or "none". */
function hoursLine(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  return hoursText((v as StoredOfficeT['hours'] & object).weekly).join(', ');
}

function short(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length <= 60 ? s : `${s.slice(0, 57)}...`;
}

function pct(x: number | null): string {
  return x === null ? 'unmeasured' : x.toFixed(1);
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
}

/** The diff as a readable report; `max` lines per section (0 = all). */
export function formatDiff(d: SiteDiff, max = 20): string {
  const c = d.counts;
  const lines = [
    `audit diff: ${d.old.version} (${d.old.site}) -> ${d.new.version} (${d.new.site})`,
    `offices ${d.old.offices} -> ${d.new.offices}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`,
    `firms ${d.old.firms} -> ${d.new.firms}: ${c.firms_added} added, ${c.firms_removed} removed`,
    `flag changes (profile_type, sponsored): ${c.flag_changes}`,
    `visibility moves of at least ${d.threshold_pct_points} point(s): ${c.visibility_moves} (${c.visibility_changed} offices in both versions have any change of metro, shares or brand index)`,
  ];
  for (const p of [...d.old.shard_problems.map((x) => `old: ${x}`), ...d.new.shard_problems.map((x) => `new: ${x}`)]) lines.push(`WARNING ${p}`);
  const section = <T>(title: string, items: T[], line: (x: T) => string): void => {
    if (items.length === 0) return;
    lines.push('', `${title} (${items.length}):`);
    const shown = max > 0 ? items.slice(0, max) : items;
    for (const x of shown) lines.push(`  ${line(x)}`);
    if (shown.length < items.length) lines.push(`  ... ${items.length - shown.length} more (--max 0 or --json for all)`);
  };
  section('Added', d.added, label);
  section('Removed', d.removed, label);
  section('Changed', d.changed, (x) => `${label(x)}: ${x.fields.map((f) => (f.field === 'hours' ? `hours ${hoursLine(f.old)} -> ${hoursLine(f.new)}` : `${f.field} ${short(f.old)} -> ${short(f.new)}`)).join('; ')}`);
  section('Flag changes', d.flag_changes, (x) => `${label(x)}: ${x.field} ${String(x.old)} -> ${String(x.new)}`);
  section('Visibility moves, largest first', d.visibility_moves, (x) => {
    const metro = x.old_metro === x.metro ? '' : ` (metro ${x.old_metro ?? 'none'} -> ${x.metro ?? 'none'})`;
    return `${label(x)}: top3 ${pct(x.old_top3)} -> ${pct(x.new_top3)} (${signed(x.delta_top3)}), appears ${pct(x.old_appears)} -> ${pct(x.new_appears)} (${signed(x.delta_appears)})${metro}`;
  });
  return `${lines.join('\n')}\n`;
}
