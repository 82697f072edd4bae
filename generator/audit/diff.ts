/**
 * `audit diff`: what changed between two published versions, office by office: added, removed, changed listing fields,
 * flag changes (profile_type, sponsored) and map-visibility moves, from a full scan of each version's office records.
 */
import { hoursText } from '../../shim/answer/hours.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import { diffOffices, type DiffSide, type OfficeBrief, type SiteDiff } from '../model/office-diff.ts';
import { scanOffices } from '../site/scan.ts';
import { openSite, type AuditLocation } from '../site/site.ts';

export {
  type DiffSide,
  type FlagChange,
  type OfficeBrief,
  type OfficeChange,
  type SiteDiff,
  type VisibilityMove,
} from '../model/office-diff.ts';

/** Options of diffSites. */
export interface DiffOptions {
  oldVersion?: string;
  newVersion?: string;
  /** Percentage points (default 1). */
  threshold?: number;
  log?: (line: string) => void;
}

/** Read both versions (every record chunk of each) and diff them. */
export async function diffSites(
  oldLoc: AuditLocation,
  newLoc: AuditLocation,
  opts: DiffOptions = {},
): Promise<SiteDiff> {
  const side = async (
    loc: AuditLocation,
    version: string | undefined,
  ): Promise<{ side: DiffSide; offices: StoredOfficeT[] }> => {
    const site = await openSite(loc, version);
    opts.log?.(`diff: reading ${site.label} version ${site.version}`);
    const scan = await scanOffices(site, opts.log === undefined ? {} : { log: opts.log });
    return {
      side: {
        site: site.label,
        version: site.version,
        week: site.meta.week,
        offices: scan.offices.length,
        firms: new Set(scan.offices.map((o) => o.firm_id)).size,
        tree_problems: scan.problems,
      },
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
  for (const p of [...d.old.tree_problems.map((x) => `old: ${x}`), ...d.new.tree_problems.map((x) => `new: ${x}`)])
    lines.push(`WARNING ${p}`);
  const section = <T>(title: string, items: T[], line: (x: T) => string): void => {
    if (items.length === 0) return;
    lines.push('', `${title} (${items.length}):`);
    const shown = max > 0 ? items.slice(0, max) : items;
    for (const x of shown) lines.push(`  ${line(x)}`);
    if (shown.length < items.length)
      lines.push(`  ... ${items.length - shown.length} more (--max 0 or --json for all)`);
  };
  section('Added', d.added, label);
  section('Removed', d.removed, label);
  section(
    'Changed',
    d.changed,
    (x) =>
      `${label(x)}: ${x.fields.map((f) => (f.field === 'hours' ? `hours ${hoursLine(f.old)} -> ${hoursLine(f.new)}` : `${f.field} ${short(f.old)} -> ${short(f.new)}`)).join('; ')}`,
  );
  section('Flag changes', d.flag_changes, (x) => `${label(x)}: ${x.field} ${String(x.old)} -> ${String(x.new)}`);
  section('Visibility moves, largest first', d.visibility_moves, (x) => {
    const metro = x.old_metro === x.metro ? '' : ` (metro ${x.old_metro ?? 'none'} -> ${x.metro ?? 'none'})`;
    return `${label(x)}: top3 ${pct(x.old_top3)} -> ${pct(x.new_top3)} (${signed(x.delta_top3)}), appears ${pct(x.old_appears)} -> ${pct(x.new_appears)} (${signed(x.delta_appears)})${metro}`;
  });
  return `${lines.join('\n')}\n`;
}
