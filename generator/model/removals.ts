/** Standing removals (data/removals.jsonl, format in data/README.md): listings and whole firms kept out of every week until lifted. */
import { readJsonl } from '../inputs/jsonl.ts';
import type { Row } from '../inputs/jsonl.ts';
import { RemovalRecord } from '../inputs/schema.ts';
import type { RemovalRecordT } from '../inputs/schema.ts';
import { firmIdOf, firmKeyOf, listingIdOf, normaliseFlagKey, websiteDomainOf } from '../inputs/ids.ts';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** What a listing is known by, for matching against removals. */
export interface ListingIdentity {
  listing_id: string;
  firm_id: string;
  /** Website domain, or null without a website. */
  domain: string | null;
  /** Only the generator knows it; published records have the listing id instead. */
  place_id?: string;
}

/** The identity of a place record as the generator will publish it. */
export function identityOfPlace(p: { place_id: string; website: string | null }): ListingIdentity {
  return {
    place_id: p.place_id,
    listing_id: listingIdOf(p.place_id),
    firm_id: firmIdOf(firmKeyOf(p.place_id, p.website)),
    domain: websiteDomainOf(p.website),
  };
}

/** What a removal removes, as removals.json records it: `listing:<id>`, `place:<id>`, `firm:<id>` or `domain:<domain>`. */
function targetOf(r: RemovalRecordT): string {
  if (r.place_id !== undefined) return `place:${r.place_id}`;
  if (r.listing_id !== undefined) return `listing:${r.listing_id}`;
  if (r.firm_id !== undefined) return `firm:${r.firm_id}`;
  return `domain:${normaliseFlagKey(r.domain ?? '')}`;
}

/** Removals not lifted, indexed for matching; with `keys`, every removal's target hashed, lifted ones included. */
export class ActiveRemovals {
  private readonly byKey = new Map<string, Row<RemovalRecordT>>();
  readonly count: number;
  /** Whether a standing removal takes out whole firms (by firm_id or domain), whose offices can change website. */
  readonly firmWide: boolean;
  /** sha256 of each removal's target (lifted ones included), sorted and distinct: a version's removals.json. */
  readonly keys: string[];
  /** Each standing firm_id or domain removal by its target (`firm:<id>`, `domain:<domain>`). */
  readonly firmWideByTarget = new Map<string, Row<RemovalRecordT>>();
  constructor(rows: readonly Row<RemovalRecordT>[]) {
    this.keys = [...new Set(rows.map((row) => createHash('sha256').update(targetOf(row.value)).digest('hex')))].sort();
    let n = 0;
    let firmWide = false;
    for (const row of rows) {
      const r = row.value;
      if (r.lifted !== undefined && r.lifted !== null) continue;
      n++;
      firmWide ||= r.firm_id !== undefined || r.domain !== undefined;
      if (r.firm_id !== undefined || r.domain !== undefined) this.firmWideByTarget.set(targetOf(r), row);
      // A place id is known only to the generator; its listing id is what a published site can be checked for.
      if (r.place_id !== undefined) this.byKey.set(`listing:${listingIdOf(r.place_id)}`, row);
      if (r.listing_id !== undefined) this.byKey.set(`listing:${r.listing_id}`, row);
      if (r.firm_id !== undefined) this.byKey.set(`firm:${r.firm_id}`, row);
      if (r.domain !== undefined) this.byKey.set(`domain:${normaliseFlagKey(r.domain)}`, row);
    }
    this.count = n;
    this.firmWide = firmWide;
  }

  /** Keep this place out under `row` by its listing id too, whatever website it shows later; false if already held. */
  hold(placeId: string, row: Row<RemovalRecordT>): boolean {
    const key = `listing:${listingIdOf(placeId)}`;
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, row);
    return true;
  }

  /** The standing firm-wide removal (by firm_id, then domain) that matches this listing, or undefined. */
  matchFirmWide(id: ListingIdentity): Row<RemovalRecordT> | undefined {
    return (
      this.byKey.get(`firm:${id.firm_id}`) ?? (id.domain === null ? undefined : this.byKey.get(`domain:${id.domain}`))
    );
  }

  /** The removal that keeps this listing out, or undefined. */
  match(id: ListingIdentity): Row<RemovalRecordT> | undefined {
    return (
      this.byKey.get(`listing:${id.listing_id}`) ??
      this.byKey.get(`firm:${id.firm_id}`) ??
      (id.domain === null ? undefined : this.byKey.get(`domain:${id.domain}`))
    );
  }
}

/** One line describing a removal, e.g. `removals.jsonl:3 (firm_id f_..., 2026-11-20: firm asked)`. */
export function describeRemoval(row: Row<RemovalRecordT>): string {
  const r = row.value;
  const what =
    r.place_id !== undefined
      ? `place_id ${r.place_id}`
      : r.listing_id !== undefined
        ? `listing_id ${r.listing_id}`
        : r.firm_id !== undefined
          ? `firm_id ${r.firm_id}`
          : `domain ${r.domain ?? ''}`;
  return `removals.jsonl:${row.line} (${what}, ${r.date}: ${r.reason})`;
}

/**
 * Read `<dataDir>/removals.jsonl` (none when missing), with the places its firm-wide removals matched in any week under
 * `<dataDir>/weeks/` held by place too; throws on a bad line, since a mistyped removal must not pass.
 */
export async function readRemovals(dataDir: string): Promise<ActiveRemovals> {
  const path = join(dataDir, 'removals.jsonl');
  const r = await readJsonl(path, RemovalRecord);
  if (r === null) return new ActiveRemovals([]);
  if (r.bad.length > 0) throw new Error(`${path}: ${r.bad.map((b) => `line ${b.line}: ${b.reason}`).join('; ')}`);
  const removals = new ActiveRemovals(r.rows);
  await holdRemovedPlaces(dataDir, removals);
  return removals;
}

// A firm removed by firm_id or domain is known by its website, which a listing can lose or change from one week to the
// next (its firm key then becomes the place, or another domain): so every place such a removal matched in a week under
// <data>/weeks/ is held by place too, and the removal still holds after the website changes. The places matched are
// also kept in <data>/removals-held.json (committed with removals.jsonl; data/weeks/ is not), so that a removal still
// holds them after the week that showed them is deleted.
const WEEK_RE = /^\d{4}-W\d{2}$/;

/** The file, under the data folder, of the places each firm-wide removal matched in some week. */
export const HELD_FILE = 'removals-held.json';

/** `<data>/removals-held.json`: removal target (`firm:<id>`, `domain:<domain>`) -> place ids, each sorted. */
interface HeldFile {
  schema_version: 1;
  generated: string;
  held: Record<string, string[]>;
}

async function readHeldFile(path: string): Promise<Record<string, string[]>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const doc = JSON.parse(text) as Partial<HeldFile>;
  if (doc.schema_version !== 1 || typeof doc.held !== 'object' || doc.held === null)
    throw new Error(`${path}: not a removals-held file (schema_version 1); restore it from git`);
  return doc.held;
}

/** The bytes of the held file for `held`: targets and place ids sorted, so the same holds give the same file. */
function heldFileText(held: ReadonlyMap<string, ReadonlySet<string>>): string {
  const doc: HeldFile = {
    schema_version: 1,
    generated:
      'by the generator: the places each firm_id or domain removal in removals.jsonl matched in a week under weeks/; commit it with removals.jsonl, do not edit',
    held: Object.fromEntries(
      [...held]
        .filter(([, ids]) => ids.size > 0)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([t, ids]) => [t, [...ids].sort()]),
    ),
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}

// One scan of the weeks' places.jsonl per process for the same weeks (names, sizes, mtimes) and the same standing
// firm-wide removals: a release reads the removals four times (gates, generate, the publish checks).
const scans = new Map<string, Promise<[placeId: string, target: string][]>>();

/** Every (place, firm-wide removal target) match in the weeks under `<dataDir>/weeks/`, oldest week first. */
async function scanWeeks(dataDir: string, removals: ActiveRemovals): Promise<[string, string][]> {
  const weeks = (await readdir(join(dataDir, 'weeks')).catch(() => [] as string[]))
    .filter((n) => WEEK_RE.test(n))
    .sort();
  const sig: string[] = [dataDir, ...[...removals.firmWideByTarget.keys()].sort()];
  for (const week of weeks) {
    const s = await stat(join(dataDir, 'weeks', week, 'places.jsonl')).catch(() => null);
    sig.push(`${week}:${s?.size ?? -1}:${s?.mtimeMs ?? -1}`);
  }
  const key = sig.join('\0');
  let scan = scans.get(key);
  if (scan === undefined) {
    scan = (async () => {
      const found: [string, string][] = [];
      const targetOf = new Map([...removals.firmWideByTarget].map(([t, row]) => [row, t] as const));
      for (const week of weeks) {
        const input = createReadStream(join(dataDir, 'weeks', week, 'places.jsonl'));
        const lines = createInterface({ input, crlfDelay: Infinity });
        try {
          for await (const line of lines) {
            const p = placeOf(line);
            const m = p === null ? undefined : removals.matchFirmWide(identityOfPlace(p));
            const t = m === undefined ? undefined : targetOf.get(m);
            if (p !== null && t !== undefined) found.push([p.place_id, t]);
          }
        } catch {
          // a week without a readable places.jsonl holds nothing; the week being generated reports its own errors
        } finally {
          lines.close();
        }
      }
      return found;
    })();
    scans.set(key, scan);
  }
  return scan;
}

/**
 * Hold by place every place a standing firm-wide removal matched: those `<dataDir>/removals-held.json` records (weeks
 * since deleted included), then those of the weeks under `<dataDir>/weeks/`, oldest first; the file is rewritten when
 * the weeks showed a place it lacked. Returns how many places were newly held.
 */
export async function holdRemovedPlaces(dataDir: string, removals: ActiveRemovals): Promise<number> {
  if (!removals.firmWide) return 0;
  const path = join(dataDir, HELD_FILE);
  const recorded = await readHeldFile(path);
  const held = new Map<string, Set<string>>();
  for (const [t, ids] of Object.entries(recorded)) held.set(t, new Set(ids));
  let count = 0;
  // Recorded first, in target order, so the removal a place is held under does not depend on which weeks remain.
  for (const t of [...held.keys()].sort()) {
    const row = removals.firmWideByTarget.get(t);
    if (row === undefined) continue; // lifted (or gone): it holds nothing, but its record stays
    for (const id of [...(held.get(t) as Set<string>)].sort()) if (removals.hold(id, row)) count++;
  }
  let grew = false;
  for (const [id, t] of await scanWeeks(dataDir, removals)) {
    const ids = held.get(t) ?? new Set<string>();
    if (!ids.has(id)) {
      ids.add(id);
      held.set(t, ids);
      grew = true;
    }
    if (removals.hold(id, removals.firmWideByTarget.get(t) as Row<RemovalRecordT>)) count++;
  }
  if (grew) {
    const tmp = `${path}.tmp-${process.pid}`;
    await writeFile(tmp, heldFileText(held));
    await rename(tmp, path);
  }
  return count;
}

/** The place id and website of one places.jsonl line, or null for a line that is not a place record. */
function placeOf(line: string): { place_id: string; website: string | null } | null {
  if (!line.includes('place_id')) return null;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return null;
  }
  const { place_id, website } = row as { place_id?: unknown; website?: unknown };
  if (typeof place_id !== 'string') return null;
  return { place_id, website: typeof website === 'string' ? website : null };
}
