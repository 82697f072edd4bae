/** Offices grouped into firms by website domain, with ids, names and operator flags. */
import type { Row } from '../inputs/jsonl.ts';
import type { FlagRecordT, PlaceRecordT } from '../inputs/schema.ts';
import { firmIdOf, firmKeyOfDomain, listingIdOf, normaliseFlagKey, websiteDomainOf } from '../inputs/ids.ts';

/** One office (a place record) with its derived ids. */
export interface OfficeIn {
  place: PlaceRecordT;
  listingId: string;
  firmKey: string;
  domain: string | null;
}

/** One firm: offices sharing a website domain (or a lone office without a website). Offices sorted by listing id. */
export interface Firm {
  key: string;
  firmId: string;
  name: string;
  websiteUrl: string | null;
  domain: string | null;
  profileType: 'standard' | 'enhanced';
  sponsored: boolean;
  offices: OfficeIn[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The most frequent value; ties go to the lexically smallest (UTF-16 code unit order). */
export function mostFrequent(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  let bestCount = 0;
  for (const [v, n] of counts) {
    if (n > bestCount || (n === bestCount && best !== undefined && v < best)) {
      best = v;
      bestCount = n;
    }
  }
  return best;
}

/** Group places into firms (sorted by firm id) and attach flags; flags naming no firm are reported in `notes`. */
export function groupFirms(
  places: readonly PlaceRecordT[],
  flags: readonly Row<FlagRecordT>[],
): { firms: Firm[]; notes: string[] } {
  const groups = new Map<string, OfficeIn[]>();
  const listingIds = new Map<string, string>();
  for (const place of places) {
    const listingId = listingIdOf(place.place_id);
    const clash = listingIds.get(listingId);
    if (clash !== undefined)
      throw new Error(`listing id collision: places "${clash}" and "${place.place_id}" both hash to ${listingId}`);
    listingIds.set(listingId, place.place_id);
    // firmKeyOf, with the domain parsed once.
    const domain = websiteDomainOf(place.website);
    const firmKey = firmKeyOfDomain(place.place_id, domain);
    const office: OfficeIn = { place, listingId, firmKey, domain };
    const list = groups.get(firmKey);
    if (list) list.push(office);
    else groups.set(firmKey, [office]);
  }
  const flagByKey = new Map<string, FlagRecordT>();
  for (const { value } of flags) flagByKey.set(normaliseFlagKey(value.firm), value);

  const firms: Firm[] = [];
  const firmIds = new Map<string, string>();
  for (const [key, offices] of groups) {
    offices.sort((a, b) => byString(a.listingId, b.listingId));
    const firmId = firmIdOf(key);
    const clash = firmIds.get(firmId);
    if (clash !== undefined) throw new Error(`firm id collision: firms "${clash}" and "${key}" both hash to ${firmId}`);
    firmIds.set(firmId, key);
    const flag = flagByKey.get(key);
    const websites = offices.map((o) => o.place.website).filter((w): w is string => w !== null);
    firms.push({
      key,
      firmId,
      name: mostFrequent(offices.map((o) => o.place.name)) ?? '',
      websiteUrl: mostFrequent(websites) ?? null,
      domain: offices[0]?.domain ?? null,
      profileType: flag?.profile_type ?? 'standard',
      sponsored: flag?.sponsored ?? false,
      offices,
    });
  }
  firms.sort((a, b) => byString(a.firmId, b.firmId));
  const unused = [...flagByKey.keys()].filter((k) => !groups.has(k)).sort();
  const notes =
    unused.length > 0
      ? [`flags.jsonl names ${unused.length} firm(s) with no office this week, e.g. ${unused.slice(0, 3).join(', ')}`]
      : [];
  return { firms, notes };
}
