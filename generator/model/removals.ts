/** Standing removals (data/removals.jsonl, format in data/README.md): listings and whole firms kept out of every week until lifted. */
import { readJsonl } from '../inputs/jsonl.ts';
import type { Row } from '../inputs/jsonl.ts';
import { RemovalRecord } from '../inputs/schema.ts';
import type { RemovalRecordT } from '../inputs/schema.ts';
import { firmIdOf, firmKeyOf, listingIdOf, normaliseFlagKey, websiteDomainOf } from '../inputs/ids.ts';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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
  /** Each standing place_id or listing_id removal (one office) by its target (`place:<id>`, `listing:<id>`). */
  readonly officeByTarget = new Map<string, Row<RemovalRecordT>>();
  /** Listing id of the removed office -> its removal's target, for each standing place_id or listing_id removal. */
  readonly officeTargetByListing = new Map<string, string>();
  /** Place id -> the listing id of the removed office it is held out as the same office as (a recreated listing). */
  readonly sameOfficeAs = new Map<string, string>();
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
      else {
        this.officeByTarget.set(targetOf(r), row);
        this.officeTargetByListing.set(
          r.place_id !== undefined ? listingIdOf(r.place_id) : (r.listing_id ?? ''),
          targetOf(r),
        );
      }
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

  /** Keep this place out under office removal `row` as the same office as the removed listing `removedListing`. */
  holdSameOffice(placeId: string, row: Row<RemovalRecordT>, removedListing: string): boolean {
    if (listingIdOf(placeId) === removedListing || !this.hold(placeId, row)) return false;
    this.sameOfficeAs.set(placeId, removedListing);
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
//
// An office removed by place_id or listing_id is known by its place id, which changes when the map's listing is
// deleted and created again: so the office a removal matched in a week (its name, address, phone and position, also
// kept in removals-held.json) is looked for in every week, and a place that is evidently the same office is held out
// by place too (sameOffice: same name, in the same state, and the same street address and city or the same phone
// within 150 m). A different firm in the same building has another name and stays in.
const WEEK_RE = /^\d{4}-W\d{2}$/;

/** The file, under the data folder, of the places each removal matched or held in some week. */
export const HELD_FILE = 'removals-held.json';

/** An office as a removed listing showed it, normalised (officeOf): what a recreated listing of it is recognised by. */
export interface OfficeSignature {
  name: string;
  address: string;
  city: string;
  state: string;
  /** The last ten digits, or null without a usable number. */
  phone: string | null;
  lat: number;
  lng: number;
}

/**
 * `<data>/removals-held.json`: removal target (`firm:<id>`, `domain:<domain>`, `place:<id>`, `listing:<id>`) -> place
 * ids it holds besides its own, and for an office removal (`place:`, `listing:`) the offices it matched (`offices`).
 */
interface HeldFile {
  schema_version: 1;
  generated: string;
  held: Record<string, string[]>;
  offices?: Record<string, OfficeSignature[]>;
}

interface Recorded {
  held: Record<string, string[]>;
  offices: Record<string, OfficeSignature[]>;
}

async function readHeldFile(path: string): Promise<Recorded> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { held: {}, offices: {} };
    throw err;
  }
  const doc = JSON.parse(text) as Partial<HeldFile>;
  if (doc.schema_version !== 1 || typeof doc.held !== 'object' || doc.held === null)
    throw new Error(`${path}: not a removals-held file (schema_version 1); restore it from git`);
  return { held: doc.held, offices: doc.offices ?? {} };
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The bytes of the held file: targets, place ids and offices sorted, so the same holds give the same file. */
function heldFileText(
  held: ReadonlyMap<string, ReadonlySet<string>>,
  offices: ReadonlyMap<string, ReadonlyMap<string, OfficeSignature>>,
): string {
  const doc: HeldFile = {
    schema_version: 1,
    generated:
      'by the generator: the places each removal in removals.jsonl matched or held in a week under weeks/, and the offices each place_id or listing_id removal matched; commit it with removals.jsonl, do not edit',
    held: Object.fromEntries(
      [...held]
        .filter(([, ids]) => ids.size > 0)
        .sort(([a], [b]) => byText(a, b))
        .map(([t, ids]) => [t, [...ids].sort()]),
    ),
    offices: Object.fromEntries(
      [...offices]
        .filter(([, sigs]) => sigs.size > 0)
        .sort(([a], [b]) => byText(a, b))
        .map(([t, sigs]) => [t, [...sigs].sort(([a], [b]) => byText(a, b)).map(([, sig]) => sig)]),
    ),
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}

const ADDRESS_WORDS: Readonly<Record<string, string>> = {
  avenue: 'ave',
  av: 'ave',
  boulevard: 'blvd',
  court: 'ct',
  drive: 'dr',
  east: 'e',
  floor: 'fl',
  highway: 'hwy',
  lane: 'ln',
  north: 'n',
  northeast: 'ne',
  northwest: 'nw',
  parkway: 'pkwy',
  place: 'pl',
  road: 'rd',
  south: 's',
  southeast: 'se',
  southwest: 'sw',
  street: 'st',
  suite: 'ste',
  west: 'w',
};

/** Lowercase words of `s` without accents or punctuation, `&` read as "and". */
function words(s: string): string[] {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/#/g, ' ste ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => w !== '');
}

/** A place as an office signature: name, street address and city normalised, the phone's last ten digits. */
export function officeOf(p: PlaceLine): OfficeSignature {
  const digits = (p.phone ?? '').replace(/\D/g, '');
  const phone = digits.length === 10 ? digits : digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : null;
  return {
    name: words(p.name).join(' '),
    address: words(p.street_address)
      .map((w) => ADDRESS_WORDS[w] ?? w)
      .join(' '),
    city: words(p.city).join(' '),
    state: p.state.toUpperCase(),
    phone,
    lat: p.lat,
    lng: p.lng,
  };
}

/** Metres between two points on a sphere of the earth's mean radius. */
function metres(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** How near a recreated listing showing the removed office's name and phone (not its address) must be: 150 m. */
export const SAME_OFFICE_METRES = 150;

/**
 * Whether two office signatures are evidently the same office: the same name in the same state, and either the same
 * street address and city, or the same phone within SAME_OFFICE_METRES. A firm's other offices (another address, its
 * phone shared but far away) and another firm at the same address (another name) are not.
 */
export function sameOffice(a: OfficeSignature, b: OfficeSignature): boolean {
  if (a.name === '' || a.name !== b.name || a.state !== b.state) return false;
  if (a.address !== '' && a.address === b.address && a.city === b.city) return true;
  return a.phone !== null && a.phone === b.phone && metres(a, b) <= SAME_OFFICE_METRES;
}

const signatureKey = (s: OfficeSignature): string => JSON.stringify([s.name, s.address, s.city, s.state, s.phone]);

/** What one scan of the weeks found. */
interface Scan {
  /** (place, firm-wide removal target) for every place a firm_id or domain removal matched, oldest week first. */
  firm: [placeId: string, target: string][];
  /** (office removal target, office) for every place a place_id or listing_id removal matched, oldest week first. */
  removed: [target: string, office: OfficeSignature][];
  /** (place, office removal target, office) for every other place that is the same office as a removed one. */
  same: [placeId: string, target: string, office: OfficeSignature][];
}

/** Counts of the scans of the weeks (first passes) and of the places.jsonl files read (every pass): for tests. */
export const weekScans = { scans: 0, files: 0 };

// One scan of the weeks' places.jsonl per process for the same weeks (names, sizes, mtimes) and the same standing
// removals (and one more pass for the same offices, when office removals stand): a release reads the removals four
// times (gates, generate, the publish checks).
const scans = new Map<string, Promise<Pick<Scan, 'firm' | 'removed'>>>();
const sameScans = new Map<string, Promise<Scan['same']>>();

/** Each place line of every week under `<dataDir>/weeks/`, oldest week first; a week it cannot read gives none. */
async function eachPlace(dataDir: string, weeks: readonly string[], fn: (p: PlaceLine) => void): Promise<void> {
  for (const week of weeks) {
    weekScans.files++;
    const input = createReadStream(join(dataDir, 'weeks', week, 'places.jsonl'));
    const lines = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        const p = placeOf(line);
        if (p !== null) fn(p);
      }
    } catch {
      // a week without a readable places.jsonl holds nothing; the week being generated reports its own errors
    } finally {
      lines.close();
    }
  }
}

/** What the removals match in the weeks under `<dataDir>/weeks/` (see Scan), given the offices already recorded. */
async function scanWeeks(
  dataDir: string,
  removals: ActiveRemovals,
  recorded: ReadonlyMap<string, ReadonlyMap<string, OfficeSignature>>,
): Promise<Scan> {
  const weeks = (await readdir(join(dataDir, 'weeks')).catch(() => [] as string[]))
    .filter((n) => WEEK_RE.test(n))
    .sort();
  const sig: string[] = [
    dataDir,
    ...[...removals.firmWideByTarget.keys()].sort(),
    ...[...removals.officeByTarget.keys()].sort(),
  ];
  for (const week of weeks) {
    const s = await stat(join(dataDir, 'weeks', week, 'places.jsonl')).catch(() => null);
    sig.push(`${week}:${s?.size ?? -1}:${s?.mtimeMs ?? -1}`);
  }
  const key = sig.join('\0');
  let first = scans.get(key);
  if (first === undefined) {
    first = (async () => {
      weekScans.scans++;
      const found: Pick<Scan, 'firm' | 'removed'> = { firm: [], removed: [] };
      const targetOf = new Map([...removals.firmWideByTarget].map(([t, row]) => [row, t] as const));
      const offices = removals.officeByTarget.size > 0;
      await eachPlace(dataDir, weeks, (p) => {
        const m = removals.firmWide ? removals.matchFirmWide(identityOfPlace(p)) : undefined;
        const t = m === undefined ? undefined : targetOf.get(m);
        if (t !== undefined) found.firm.push([p.place_id, t]);
        const o = offices ? removals.officeTargetByListing.get(listingIdOf(p.place_id)) : undefined;
        if (o !== undefined) found.removed.push([o, officeOf(p)]);
      });
      return found;
    })();
    scans.set(key, first);
  }
  const { firm, removed } = await first;
  // The offices the removals stand for: those the weeks showed, and recorded ones (weeks since deleted). Only the
  // recorded ones the weeks did not show key the second pass, so that recording what it found does not repeat it.
  const seen = new Set(removed.map(([t, s]) => `${t}\0${signatureKey(s)}`));
  const extra: [string, OfficeSignature][] = [];
  for (const [t, sigs] of recorded)
    if (removals.officeByTarget.has(t)) for (const [k, s] of sigs) if (!seen.has(`${t}\0${k}`)) extra.push([t, s]);
  const known = [...removed, ...extra];
  if (known.length === 0) return { firm, removed, same: [] };
  const sameKey = `${key}\0same\0${JSON.stringify(extra.map(([t, s]) => `${t}\0${signatureKey(s)}`).sort())}`;
  let same = sameScans.get(sameKey);
  if (same === undefined) {
    same = (async () => {
      const found: Scan['same'] = [];
      const names = new Set(known.map(([, s]) => s.name));
      await eachPlace(dataDir, weeks, (p) => {
        if (removals.officeTargetByListing.has(listingIdOf(p.place_id))) return;
        // The name first: only places named as a removed office are worth a whole signature.
        if (!names.has(words(p.name).join(' '))) return;
        const office = officeOf(p);
        const hit = known.find(([, s]) => sameOffice(s, office));
        if (hit !== undefined) found.push([p.place_id, hit[0], office]);
      });
      return found;
    })();
    sameScans.set(sameKey, same);
  }
  return { firm, removed, same: await same };
}

/** The listing id an office removal target (`place:<id>`, `listing:<id>`) removes. */
function removedListingOf(target: string): string {
  return target.startsWith('place:') ? listingIdOf(target.slice('place:'.length)) : target.slice('listing:'.length);
}

/**
 * Hold by place every place a standing removal holds beyond its own ids: those `<dataDir>/removals-held.json` records
 * (weeks since deleted included), then those of the weeks under `<dataDir>/weeks/`, oldest first: every place a
 * firm_id or domain removal matched, and every place that is the same office (sameOffice) as one a place_id or
 * listing_id removal matched. The file is rewritten when the weeks showed something it lacked; a failure to write it
 * is an error naming the file. Returns how many places were newly held.
 */
export async function holdRemovedPlaces(dataDir: string, removals: ActiveRemovals): Promise<number> {
  if (!removals.firmWide && removals.officeByTarget.size === 0) return 0;
  const path = join(dataDir, HELD_FILE);
  const recorded = await readHeldFile(path);
  const held = new Map<string, Set<string>>();
  for (const [t, ids] of Object.entries(recorded.held)) held.set(t, new Set(ids));
  const offices = new Map<string, Map<string, OfficeSignature>>();
  for (const [t, sigs] of Object.entries(recorded.offices))
    offices.set(t, new Map(sigs.map((s) => [signatureKey(s), s] as const)));
  const snapshot = new Map([...offices].map(([t, sigs]) => [t, new Map(sigs)] as const));
  let count = 0;
  const holdOne = (id: string, t: string): void => {
    const firm = removals.firmWideByTarget.get(t);
    if (firm !== undefined) {
      if (removals.hold(id, firm)) count++;
      return;
    }
    const office = removals.officeByTarget.get(t);
    if (office !== undefined && removals.holdSameOffice(id, office, removedListingOf(t))) count++;
    // otherwise lifted (or gone): it holds nothing, but its record stays
  };
  // Recorded first, in target order, so the removal a place is held under does not depend on which weeks remain.
  for (const t of [...held.keys()].sort()) for (const id of [...(held.get(t) as Set<string>)].sort()) holdOne(id, t);
  let grew = false;
  const record = (t: string, id: string | null, office: OfficeSignature | null): void => {
    if (id !== null) {
      const ids = held.get(t) ?? new Set<string>();
      if (!ids.has(id)) {
        ids.add(id);
        held.set(t, ids);
        grew = true;
      }
    }
    if (office !== null) {
      const sigs = offices.get(t) ?? new Map<string, OfficeSignature>();
      const k = signatureKey(office);
      if (!sigs.has(k)) {
        sigs.set(k, office);
        offices.set(t, sigs);
        grew = true;
      }
    }
  };
  const scan = await scanWeeks(dataDir, removals, snapshot);
  for (const [id, t] of scan.firm) {
    record(t, id, null);
    holdOne(id, t);
  }
  for (const [t, office] of scan.removed) record(t, null, office);
  // A place held as the same office is recorded by place only: what matches is the office the removal itself matched.
  for (const [id, t] of scan.same) {
    record(t, id, null);
    holdOne(id, t);
  }
  if (grew) {
    const tmp = `${path}.tmp-${process.pid}`;
    try {
      await writeFile(tmp, heldFileText(held, offices));
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => {});
      throw new Error(
        `cannot write ${path} (${(err as Error).message}): it records the places standing removals hold out, and a held place not recorded there could come back once the week that showed it is deleted; make it writable (and commit it with removals.jsonl), then run again`,
        { cause: err },
      );
    }
  }
  return count;
}

/** What the removals read of one places.jsonl line. */
interface PlaceLine {
  place_id: string;
  website: string | null;
  name: string;
  street_address: string;
  city: string;
  state: string;
  phone: string | null;
  lat: number;
  lng: number;
}

/** The fields the removals read of one places.jsonl line, or null for a line that is not a place record. */
function placeOf(line: string): PlaceLine | null {
  if (!line.includes('place_id')) return null;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return null;
  }
  const r = row as Record<string, unknown>;
  if (typeof r.place_id !== 'string') return null;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    place_id: r.place_id,
    website: typeof r.website === 'string' ? r.website : null,
    name: text(r.name),
    street_address: text(r.street_address),
    city: text(r.city),
    state: text(r.state),
    phone: typeof r.phone === 'string' ? r.phone : null,
    lat: typeof r.lat === 'number' ? r.lat : NaN,
    lng: typeof r.lng === 'number' ? r.lng : NaN,
  };
}
