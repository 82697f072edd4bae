/** Standing removals (data/removals.jsonl, format in data/README.md): listings and whole firms kept out of every week until lifted. */
import { readJsonl } from '../inputs/jsonl.ts';
import type { Row } from '../inputs/jsonl.ts';
import { RemovalRecord } from '../inputs/schema.ts';
import type { RemovalRecordT } from '../inputs/schema.ts';
import { firmIdOf, firmKeyOf, listingIdOf, normaliseFlagKey, websiteDomainOf } from '../inputs/ids.ts';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
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
  constructor(rows: readonly Row<RemovalRecordT>[]) {
    this.keys = [...new Set(rows.map((row) => createHash('sha256').update(targetOf(row.value)).digest('hex')))].sort();
    let n = 0;
    let firmWide = false;
    for (const row of rows) {
      const r = row.value;
      if (r.lifted !== undefined && r.lifted !== null) continue;
      n++;
      firmWide ||= r.firm_id !== undefined || r.domain !== undefined;
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
// <data>/weeks/ is held by place too, and the removal still holds after the website changes.
const WEEK_RE = /^\d{4}-W\d{2}$/;

/** Hold by place every place a firm-wide removal matched in a week under `<dataDir>/weeks/`; returns how many. */
export async function holdRemovedPlaces(dataDir: string, removals: ActiveRemovals): Promise<number> {
  if (!removals.firmWide) return 0;
  const weeks = (await readdir(join(dataDir, 'weeks')).catch(() => [] as string[])).filter((n) => WEEK_RE.test(n));
  let held = 0;
  // Oldest first, so the removal a place is held under does not depend on which weeks are newer.
  for (const week of weeks.sort()) {
    const input = createReadStream(join(dataDir, 'weeks', week, 'places.jsonl'));
    const lines = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        const p = placeOf(line);
        const m = p === null ? undefined : removals.match(identityOfPlace(p));
        if (p !== null && m !== undefined && removals.hold(p.place_id, m)) held++;
      }
    } catch {
      // a week without a readable places.jsonl holds nothing; the week being generated reports its own errors
    } finally {
      lines.close();
    }
  }
  return held;
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
