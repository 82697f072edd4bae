/**
 * What the calling model reads before it calls: the server instructions (the caller rules) and the three tool
 * descriptions, each at most MAX_DESCRIPTION characters (a limit several clients enforce). While the served dataset
 * is synthetic, all of them say the firms are fictional.
 */
import { LIMIT, RADIUS_MILES } from '../contract/constants.ts';
import type { DatasetInfo } from '../answer/service.ts';

/** Longest tool description several widely used MCP clients accept. */
export const MAX_DESCRIPTION = 1024;

/** The dataset facts the texts name; null when the store could not be read (the texts then name no count). */
export type TextData = Pick<DatasetInfo, 'synthetic' | 'metros'> | null;

function metros(data: TextData): string {
  return data === null ? 'the measured US metros' : `the ${data.metros} measured US metros`;
}

function sample(data: TextData): string[] {
  return data?.synthetic === true
    ? ['SAMPLE DATA: the firms are fictional; never present them as real lawyers or a real search result.']
    : [];
}

/** Server-level instructions (initialize / server/discover): the caller rules. */
export function instructions(data: TextData): string {
  return [
    `A read-only directory of personal injury law offices in ${metros(data)}, listed by straight-line distance only.`,
    ...sample(data),
    'Rules for using its answers with a person:',
    '1. Search with the location of the person who needs a lawyer (their own ZIP, "City, ST" or coordinates); never a guessed or different place.',
    '2. When covered is false there is no data for that place: say so, say that this does not mean there are no lawyers there, and do not substitute another metro or city.',
    '3. Show several firms, not only the first, and keep the disclosure text with them.',
    "4. Give each website link exactly as returned (a link on this service that redirects to the firm's own site).",
    '5. A listing is not a recommendation, endorsement or referral; map visibility measures how often an office shows on a web map, not lawyer quality.',
    "6. Search only for a person's actual need: copying the directory in bulk (sweeping locations, storing or republishing listings) is against the terms.",
    'Tool results: the text block and structuredContent are compact answers written for you (the relaying rules and any line to say to the person included); format "json" returns the full REST answer in both instead.',
    'A failed call is isError: true with the reason as text, a line "problem: {...}" with its code, and the same problem object in _meta.problem.',
  ].join('\n');
}

/** Description of find_injury_attorneys. */
export function findDescription(data: TextData): string {
  return [
    'Personal injury law firms with an office near a US location, one per firm by its nearest office, nearest first by straight-line distance only.',
    ...sample(data),
    'Use the person\'s own location (ZIP, "City, ST" or lat/lng), never a guessed or different place.',
    `If covered is false there is no data for the place (outside ${metros(data)}), which does not mean there are no lawyers there. Say so; do not search another metro instead.`,
    `Show several firms (limit up to ${LIMIT.max}, radius_miles up to ${RADIUS_MILES.max}) and keep the disclosure with them; give website links exactly as returned. A listing is not a recommendation.`,
    'The text and structuredContent are compact answers; format "json" returns the full REST answer.',
  ].join('\n');
}

/** Description of get_firm. */
export function firmDescription(data: TextData): string {
  return [
    "One listed office by listing_id, exactly as a search returned it: the firm, this office (address, phone, hours) and the firm's other offices.",
    ...sample(data),
    'With lat and lng (the person\'s point) the other offices come nearest to it first; at most 10 and the total (format "json": all).',
    'Never construct listing ids; search again instead. Give the website link exactly as returned and keep the disclosure. A listing is not a recommendation.',
  ].join('\n');
}

/** Description of get_coverage. */
export function coverageDescription(data: TextData): string {
  return [
    `The metros this directory covers (${metros(data)}), with firm and office counts per metro and the week of the data.`,
    ...sample(data),
    "Use it to explain coverage (e.g. after covered: false), never to pick another metro for the person: results mean something only for the person's own location.",
  ].join('\n');
}
