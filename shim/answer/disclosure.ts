/**
 * The `disclosure` every answer carries (REST, MCP, pages): what a listing is and is not, that the firms are fictional
 * while the served dataset is synthetic, and for a place outside the measured metros that no data is not no lawyers.
 * Written for the person an assistant retells it to, so it names no API field.
 */
import { DISCLOSURE } from '../contract/constants.ts';
import { US_STATES } from '../places/state-names.ts';
import type { LocationT } from '../contract/schemas.ts';
import type { MetaT } from '../format/site-format.ts';

/** Said first in every disclosure while the served dataset is synthetic. */
export const SYNTHETIC_NOTE =
  'Sample data: every firm, office, phone number and website in this dataset is fictional, generated for demonstration. ' +
  'They are not real law offices; do not present them to anyone as real lawyers or contact them.';

/** What shapes the disclosure: whether the served dataset is synthetic. */
export interface DisclosureData {
  synthetic: boolean;
}

/** The disclosure of an answer that lists firms (a covered search, a firm, the coverage document). */
export function disclosureFor(data: DisclosureData): string {
  return data.synthetic ? `${SYNTHETIC_NOTE} ${DISCLOSURE}` : DISCLOSURE;
}

/** How the uncovered disclosure names the place: "New Haven, CT", "ZIP 59001 (Absarokee, MT)", "41.3,-72.9 (in Connecticut)". */
export function placeName(loc: Pick<LocationT, 'kind' | 'input' | 'zip' | 'city' | 'state' | 'lat' | 'lng'>): string {
  const stateName = loc.state === null ? null : (US_STATES[loc.state] ?? loc.state);
  if (loc.kind === 'city' && loc.city !== null && loc.state !== null) return `${loc.city}, ${loc.state}`;
  if (loc.kind === 'zip' && loc.zip !== null) {
    if (loc.city !== null && loc.state !== null) return `ZIP ${loc.zip} (${loc.city}, ${loc.state})`;
    return stateName === null ? `ZIP ${loc.zip}` : `ZIP ${loc.zip} (in ${stateName})`;
  }
  const point = `the point ${loc.lat},${loc.lng}`;
  return stateName === null ? point : `${point} (in ${stateName})`;
}

/**
 * The disclosure of a search outside every measured metro: the service has no data there, which does not mean there
 * are no injury lawyers there, and another metro is no substitute. `metros` is how many metros are measured.
 */
export function uncoveredDisclosure(
  loc: Parameters<typeof placeName>[0],
  data: DisclosureData & { metros: number },
): string {
  const text =
    `No data for this place: ${placeName(loc)} is outside the ${data.metros} US metros this directory measures, so it lists no offices there. ` +
    'That does not mean there are no personal injury lawyers there; it means this directory has no data for the area. ' +
    'Do not substitute firms from another metro or city. To find a lawyer there, the state bar (many run a lawyer referral service) is a place to start.';
  // The place's own message first; the sample-data note still travels with it.
  return data.synthetic ? `${text} ${SYNTHETIC_NOTE}` : text;
}

/** The disclosure of a search answer on a version described by `meta`: uncovered or not, synthetic or not. */
export function searchDisclosure(
  covered: boolean,
  loc: Parameters<typeof placeName>[0],
  meta: Pick<MetaT, 'dataset' | 'totals'>,
): string {
  return covered
    ? disclosureFor(meta.dataset)
    : uncoveredDisclosure(loc, { synthetic: meta.dataset.synthetic, metros: meta.totals.metros });
}
