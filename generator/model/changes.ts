/**
 * The public changes document of a version (v/<version>/changes.json): listings added, removed and changed since the
 * previous version, with old and new values and why. Only public facts of a request are published: its kind, date and
 * the operator's optional `public_note`; the `reason` of a correction or removal stays in the operator's files.
 */
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import type { ChangeReasonT, ChangesDocT, StoredOfficeT } from '../../shim/format/site-format.ts';
import { diffOffices, type OfficeChange } from './office-diff.ts';
import type { Corrected } from './corrections.ts';
import { listingIdOf, normaliseFlagKey } from '../inputs/ids.ts';
import type { Row } from '../inputs/jsonl.ts';
import type { CorrectionRecordT, RemovalRecordT } from '../inputs/schema.ts';

/** What this week's corrections and removals did, by listing id. */
export interface Provenance {
  /** Update corrections applied to the listing this week, in file order. */
  updates: Map<string, CorrectionRecordT[]>;
  /** The correction that removed the listing this week. */
  removedByCorrection: Map<string, CorrectionRecordT>;
  /** The standing removal that kept the listing out this week. */
  standing: Map<string, RemovalRecordT>;
  /** Removals that were lifted (a listing they name that comes back says so). */
  lifted: RemovalRecordT[];
}

/** Collect the provenance of a week from the corrections file, what applying it did, and the removals that matched. */
export function provenanceOf(
  corrections: readonly Row<CorrectionRecordT>[],
  corrected: Pick<Corrected, 'removed' | 'updated'>,
  standing: ReadonlyMap<string, RemovalRecordT>,
  removals: readonly Row<RemovalRecordT>[],
): Provenance {
  const updates = new Map<string, CorrectionRecordT[]>();
  const removedByCorrection = new Map<string, CorrectionRecordT>();
  for (const { value: c } of corrections) {
    if (c.action === 'remove' && corrected.removed.has(c.place_id)) removedByCorrection.set(listingIdOf(c.place_id), c);
    if (c.action === 'update' && corrected.updated.has(c.place_id)) {
      const id = listingIdOf(c.place_id);
      updates.set(id, [...(updates.get(id) ?? []), c]);
    }
  }
  const byListing = new Map<string, RemovalRecordT>();
  for (const [placeId, r] of standing) byListing.set(listingIdOf(placeId), r);
  const lifted = removals.map((r) => r.value).filter((r) => r.lifted !== undefined && r.lifted !== null);
  return { updates, removedByCorrection, standing: byListing, lifted };
}

/** The place-record fields each published listing field comes from (what a correction's `set` can change). */
const SOURCES: Readonly<Record<string, readonly string[]>> = {
  name: ['name'],
  address: ['street_address'],
  city: ['city'],
  state: ['state'],
  zip: ['zip'],
  lat: ['lat'],
  lng: ['lng'],
  phone: ['phone'],
  website_url: ['website'],
  website_domain: ['website'],
  firm_id: ['website'],
  primary_category: ['primary_category'],
  google_listing_claimed: ['claimed'],
  hours: ['opening_hours', 'timezone'],
};

const note = (x: { public_note?: string | undefined }): string | null => x.public_note ?? null;

function correctionReason(c: CorrectionRecordT): ChangeReasonT {
  return { kind: 'correction', date: c.date, note: note(c) };
}

function removalReason(r: RemovalRecordT): ChangeReasonT {
  return {
    kind: 'removal',
    scope: r.place_id !== undefined || r.listing_id !== undefined ? 'listing' : 'firm',
    date: r.date,
    note: note(r),
  };
}

/** The correction of this week that set the field, if any (the last one in file order). */
function correctionSetting(p: Provenance, listingId: string, field: string): CorrectionRecordT | undefined {
  const sources = SOURCES[field] ?? [];
  const hits = (p.updates.get(listingId) ?? []).filter(
    (c) => c.action === 'update' && sources.some((s) => Object.hasOwn(c.set, s)),
  );
  return hits[hits.length - 1];
}

/** A lifted removal that names this listing, its firm or its domain. */
function liftedNaming(p: Provenance, o: StoredOfficeT): RemovalRecordT | undefined {
  const domain = o.website_domain === null ? null : normaliseFlagKey(o.website_domain);
  return p.lifted.find(
    (r) =>
      (r.place_id !== undefined && listingIdOf(r.place_id) === o.listing_id) ||
      r.listing_id === o.listing_id ||
      r.firm_id === o.firm_id ||
      (r.domain !== undefined && domain !== null && normaliseFlagKey(r.domain) === domain),
  );
}

/**
 * The listing diff against the previous version, fed one batch of its offices at a time (a record chunk), so the previous
 * version is never held whole: at a million offices that would double the generator's heap. Each batch is diffed with
 * audit diff's own `diffOffices`, so the document and `npm run audit -- diff` agree by construction.
 */
export class ListingDiffer {
  /** This version's offices not yet met in the previous one: what is left at the end was added. */
  private readonly unseen: Map<string, StoredOfficeT>;
  private readonly removedOld: StoredOfficeT[] = [];
  private readonly changedList: OfficeChange[] = [];

  constructor(offices: readonly StoredOfficeT[]) {
    this.unseen = new Map(offices.map((o) => [o.listing_id, o]));
  }

  /**
   * Offices of the previous version (any batch; each listing once over all batches). With `check`, `previous` holds
   * records as parsed JSON, and only those that differ from this version's are checked (a record equal, field by field,
   * to a checked one of this version is a stored office too), which saves about a tenth of the diff at a million offices.
   */
  add(previous: readonly StoredOfficeT[]): void;
  add(previous: readonly object[], check: (raw: object, i: number) => StoredOfficeT): void;
  add(previous: readonly object[], check?: (raw: object, i: number) => StoredOfficeT): void {
    const before: StoredOfficeT[] = [];
    const after: StoredOfficeT[] = [];
    for (const [i, raw] of previous.entries()) {
      const id = (raw as { listing_id?: unknown }).listing_id;
      const n = typeof id === 'string' ? this.unseen.get(id) : undefined;
      // Equal fields and values: diffOffices would find no field changed.
      if (n !== undefined && sameJson(raw, n)) {
        // Forgotten once met, instead of remembered in a set of a million seen ids.
        this.unseen.delete(n.listing_id);
        continue;
      }
      const o = check === undefined ? (raw as StoredOfficeT) : check(raw, i);
      this.unseen.delete(o.listing_id);
      if (n === undefined) this.removedOld.push(o);
      else {
        before.push(o);
        after.push(n);
      }
    }
    // Only records that differ go to diffOffices: comparing every field's JSON of a million unchanged offices was most
    // of the time a run with a previous version spent on this document.
    if (after.length > 0) this.changedList.push(...diffOffices(before, after, Infinity).changed);
  }

  /** Added (new records), removed (old records) and changed, each sorted by listing_id. */
  result(): { added: StoredOfficeT[]; removed: StoredOfficeT[]; changed: OfficeChange[] } {
    const added = [...this.unseen.values()].sort(byId);
    return { added, removed: [...this.removedOld].sort(byId), changed: [...this.changedList].sort(byId) };
  }
}

/**
 * Whether two JSON values are equal: objects by their own keys (in any order), arrays item by item. Compared in place:
 * serialising the hours and measurement of a million previous records to compare them was most of the diff's time.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  for (const k of names)
    if (!Object.hasOwn(b, k) || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  return true;
}

const byId = (a: { listing_id: string }, b: { listing_id: string }): number =>
  a.listing_id < b.listing_id ? -1 : a.listing_id > b.listing_id ? 1 : 0;

/** The previous version as the changes document compares against it, or null for the first version of a site. */
export interface PreviousVersion {
  version: string;
  week: string;
  diff: ReturnType<ListingDiffer['result']>;
}

/** Build the changes document (pure, deterministic: every list by listing_id). */
export function changesDoc(
  version: string,
  week: string,
  previous: PreviousVersion | null,
  p: Provenance,
): ChangesDocT {
  const base: Pick<ChangesDocT, 'schema_version' | 'generated' | 'version' | 'week'> = {
    schema_version: SCHEMA_VERSIONS.changes,
    generated: 'by generator/; do not edit',
    version,
    week,
  };
  if (previous === null)
    return {
      ...base,
      previous: null,
      counts: { added: 0, removed: 0, changed: 0 },
      added: [],
      removed: [],
      changed: [],
    };
  const d = previous.diff;
  const weekly: ChangeReasonT = { kind: 'weekly_data' };

  const added = d.added.map((a) => {
    const lifted = liftedNaming(p, a);
    const reasons: ChangeReasonT[] = [
      lifted === undefined
        ? weekly
        : { kind: 'removal_lifted', date: lifted.date, lifted: lifted.lifted ?? '', note: note(lifted) },
    ];
    for (const c of p.updates.get(a.listing_id) ?? []) reasons.push(correctionReason(c));
    return { listing_id: a.listing_id, firm_id: a.firm_id, name: a.name, city: a.city, state: a.state, reasons };
  });

  const removed = d.removed.map((r) => {
    const standing = p.standing.get(r.listing_id);
    const correction = p.removedByCorrection.get(r.listing_id);
    const onRequest = standing !== undefined || correction !== undefined;
    const reasons: ChangeReasonT[] = [];
    if (standing !== undefined) reasons.push(removalReason(standing));
    if (correction !== undefined) reasons.push(correctionReason(correction));
    if (reasons.length === 0) reasons.push(weekly);
    // A listing taken out on request is not described again in a new public document.
    return {
      listing_id: r.listing_id,
      firm_id: r.firm_id,
      old: onRequest ? null : { name: r.name, city: r.city, state: r.state },
      reasons,
    };
  });

  const changed = d.changed.map((c) => ({
    listing_id: c.listing_id,
    firm_id: c.firm_id,
    name: c.name,
    city: c.city,
    state: c.state,
    fields: c.fields.map((f) => {
      const by = correctionSetting(p, c.listing_id, f.field);
      return { field: f.field, old: f.old, new: f.new, reason: by === undefined ? weekly : correctionReason(by) };
    }),
  }));
  return {
    ...base,
    previous: { version: previous.version, week: previous.week },
    counts: { added: added.length, removed: removed.length, changed: changed.length },
    added,
    removed,
    changed,
  };
}
