/** Stored offices (record chunks and firm documents) assembled from places, firms, flags and visibility, in the compact stored form. */
import type {
  StoredBrandT,
  StoredFirmBrandT,
  StoredHoursT,
  StoredOfficeT,
  StoredVisibilityT,
} from '../../shim/format/site-format.ts';
import type { Firm } from './firms.ts';
import { convertHours } from './hours.ts';
import type { PlaceRecordT } from '../inputs/schema.ts';
import { STATE_TIMEZONES } from '../inputs/timezones.ts';
import type { Visibility } from './visibility.ts';

/** A firm without its input offices (the stored offices replace them, so the place records can be freed). */
export type FirmInfo = Omit<Firm, 'offices'>;

/** One firm with its stored offices (same order as firm.offices: by listing id) and the firm-level brand index. */
export interface BuiltFirm {
  firm: FirmInfo;
  offices: StoredOfficeT[];
  /** The brand index in the metro where most of the firm's offices are measured (ties: slug), or null. */
  mainBrand: StoredFirmBrandT | null;
}

const NO_BRAND: ReadonlyMap<string, StoredBrandT> = new Map();
/** The input offices of every released firm: one frozen empty array rather than one each (722k firms at a million). */
const NO_OFFICES = Object.freeze([]) as unknown as Firm['offices'];

/** A function returning one shared object per key, made by `make` the first time the key is asked for. */
function sharedValues(): <T extends object>(key: string, make: () => T) => T {
  const seen = new Map<string, object>();
  return <T extends object>(key: string, make: () => T): T => {
    const known = seen.get(key);
    if (known !== undefined) return known as T;
    const made = make();
    seen.set(key, made);
    return made;
  };
}

type Periods = NonNullable<PlaceRecordT['opening_hours']>['periods'];

/**
 * Build every stored office. Field order follows the StoredOffice schema. With `release`, each firm's input offices are
 * emptied once its stored offices are built, so the place records can be collected while the rest are built.
 */
export function buildOffices(
  firms: readonly Firm[],
  vis: Visibility,
  { release = false }: { release?: boolean } = {},
): BuiltFirm[] {
  // Offices sharing a periods object (see inputs/intern.ts) and a time zone share one stored hours object: same bytes.
  const hoursCache = new Map<Periods, Map<string, StoredHoursT | null>>();
  const hoursOf = (periods: Periods | null, timezone: string): StoredHoursT | null => {
    if (periods === null) return null;
    let byZone = hoursCache.get(periods);
    if (byZone === undefined) hoursCache.set(periods, (byZone = new Map()));
    let hours = byZone.get(timezone);
    if (hours === undefined) byZone.set(timezone, (hours = convertHours(periods, timezone)));
    return hours;
  };
  // Equal measurements are one object each (same bytes): a million offices hold a few thousand distinct ones.
  const [sharedVisibility, sharedBrand, sharedMain] = [sharedValues(), sharedValues(), sharedValues()];
  const visibilityOf = (mv: { top3_share_pct: number; appears_share_pct: number }): StoredVisibilityT =>
    sharedVisibility(`${mv.top3_share_pct} ${mv.appears_share_pct}`, () => ({
      top3_share_pct: mv.top3_share_pct,
      appears_share_pct: mv.appears_share_pct,
    }));
  const brandOf = (b: StoredBrandT | undefined): StoredBrandT | null =>
    b === undefined ? null : sharedBrand(`${b.top3_share_pct} ${b.appears_share_pct} ${b.offices_measured}`, () => b);
  return firms.map((firm) => {
    const brand = vis.brand.get(firm.key) ?? NO_BRAND;
    const offices = firm.offices.map((o): StoredOfficeT => {
      const p = o.place;
      const mv = vis.office.get(p.place_id) ?? null;
      const timezone = p.timezone ?? STATE_TIMEZONES[p.state] ?? 'America/New_York';
      return {
        listing_id: o.listingId,
        firm_id: firm.firmId,
        name: p.name,
        address: p.street_address,
        city: p.city,
        state: p.state,
        zip: p.zip,
        lat: p.lat,
        lng: p.lng,
        phone: p.phone,
        website_url: p.website,
        website_domain: o.domain,
        primary_category: p.primary_category,
        google_listing_claimed: p.claimed,
        hours: hoursOf(p.opening_hours?.periods ?? null, timezone),
        metro: mv?.metro ?? null,
        visibility: mv === null ? null : visibilityOf(mv),
        brand: mv === null ? null : brandOf(brand.get(mv.metro)),
        profile_type: firm.profileType,
        sponsored: firm.sponsored,
      };
    });
    // brand is in slug order, so a strict > keeps the smaller slug on ties.
    let main: StoredFirmBrandT | null = null;
    for (const [metro, b] of brand) {
      if (main === null || b.offices_measured > main.offices_measured) main = { metro, ...b };
    }
    if (main !== null) {
      const m = main;
      // A literal, not the spread: same keys in the same order, without a separate property store per firm.
      main = sharedMain(`${m.metro} ${m.top3_share_pct} ${m.appears_share_pct} ${m.offices_measured}`, () => ({
        metro: m.metro,
        top3_share_pct: m.top3_share_pct,
        appears_share_pct: m.appears_share_pct,
        offices_measured: m.offices_measured,
      }));
    }
    // Released, the firm itself is the info (its offices emptied): a copy per firm was ~50 MB more at a million offices.
    if (release) {
      firm.offices = NO_OFFICES;
      return { firm, offices, mainBrand: main };
    }
    const { offices: _inputOffices, ...info } = firm;
    return { firm: info, offices, mainBrand: main };
  });
}

/** The firm document's brand index for `office`: the office's own, else the firm's main one. */
export function firmBrandFor(office: StoredOfficeT, built: BuiltFirm): StoredFirmBrandT | null {
  if (office.metro === null || office.brand === null) return built.mainBrand;
  return { metro: office.metro, ...office.brand };
}
