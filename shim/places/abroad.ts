/**
 * Places outside the US as a caller may name them after a city ("Toronto, Canada", "Toronto, ON", "London, UK"):
 * countries by their English names (from the runtime's ICU data, so no list is kept here) and a few common short
 * forms, and Canada's provinces and territories, whose codes people write where a US state would go; and large cities
 * abroad under the name they have there, which the gazetteer's English names miss ("München"). Pure.
 */
import { nullProto } from '../format/dict.ts';
import { normaliseCityName } from '../format/site-format.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** The English name of a country by its ISO 3166-1 alpha-2 code ("CA" -> "Canada"), or the code when unknown. */
export function countryName(code: string): string {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Canada's provinces and territories: postal code -> name. */
const CANADA: Readonly<Record<string, string>> = nullProto({
  AB: 'Alberta',
  BC: 'British Columbia',
  MB: 'Manitoba',
  NB: 'New Brunswick',
  NL: 'Newfoundland and Labrador',
  NS: 'Nova Scotia',
  NT: 'the Northwest Territories',
  NU: 'Nunavut',
  ON: 'Ontario',
  PE: 'Prince Edward Island',
  QC: 'Quebec',
  SK: 'Saskatchewan',
  YT: 'Yukon',
});

/** Short forms people write for a country that ICU's names do not cover. */
const SHORT_FORMS: Readonly<Record<string, string>> = nullProto({
  uk: 'United Kingdom',
  england: 'England (United Kingdom)',
  scotland: 'Scotland (United Kingdom)',
  wales: 'Wales (United Kingdom)',
  britain: 'United Kingdom',
  greatbritain: 'United Kingdom',
  uae: 'United Arab Emirates',
});

/** ISO codes of the US and its areas, which ICU lists as regions of their own. */
const US_AREAS = new Set(['US', 'PR', 'GU', 'AS', 'MP', 'VI', 'UM']);

let byName: Map<string, string> | null = null;

/** Normalised name -> display name of every country, province and short form (built once). */
function names(): Map<string, string> {
  if (byName !== null) return byName;
  byName = new Map();
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      const name = countryName(code);
      // ICU answers the code itself for codes with no region; the US and its territories are not abroad.
      if (name === code || US_AREAS.has(code)) continue;
      byName.set(normaliseCityName(name), name);
    }
  }
  for (const [code, name] of Object.entries(CANADA)) {
    byName.set(code.toLowerCase(), `${name}, Canada`);
    byName.set(normaliseCityName(name.replace(/^the /, '')), `${name}, Canada`);
  }
  for (const [k, name] of Object.entries(SHORT_FORMS)) byName.set(k, name);
  return byName;
}

/** The place abroad a "City, X" part names (a country, a Canadian province or its code), or null. */
export function regionAbroad(text: string): string | null {
  const key = normaliseCityName(text);
  return key === '' ? null : (names().get(key) ?? null);
}

/**
 * Large cities abroad as they are named there (normalised: no accents; "ue" for "ü" too), where that name is not the
 * English one the gazetteer holds as best known abroad: [English name, ISO country]. Without them "München" was read,
 * as the closest spelling, as Muncie, IN, and "Roma" as Roma, TX. Only names no large US place holds.
 */
const LOCAL_NAMES: Readonly<Record<string, readonly [string, string]>> = nullProto({
  munchen: ['Munich', 'DE'],
  muenchen: ['Munich', 'DE'],
  koeln: ['Cologne', 'DE'],
  nuernberg: ['Nuremberg', 'DE'],
  duesseldorf: ['Düsseldorf', 'DE'],
  zuerich: ['Zurich', 'CH'],
  geneve: ['Geneva', 'CH'],
  wien: ['Vienna', 'AT'],
  praha: ['Prague', 'CZ'],
  warszawa: ['Warsaw', 'PL'],
  roma: ['Rome', 'IT'],
  milano: ['Milan', 'IT'],
  napoli: ['Naples', 'IT'],
  firenze: ['Florence', 'IT'],
  venezia: ['Venice', 'IT'],
  torino: ['Turin', 'IT'],
  genova: ['Genoa', 'IT'],
  lisboa: ['Lisbon', 'PT'],
  bruxelles: ['Brussels', 'BE'],
  brussel: ['Brussels', 'BE'],
  'den haag': ['The Hague', 'NL'],
  kobenhavn: ['Copenhagen', 'DK'],
  koebenhavn: ['Copenhagen', 'DK'],
  moskva: ['Moscow', 'RU'],
  athina: ['Athens', 'GR'],
  beograd: ['Belgrade', 'RS'],
  bucuresti: ['Bucharest', 'RO'],
  'ciudad de mexico': ['Mexico City', 'MX'],
});

/** The city abroad a name stands for in its own language ("München" -> ["Munich", "DE"]), or null. */
export function localNameAbroad(name: string): readonly [string, string] | null {
  return LOCAL_NAMES[normaliseCityName(name)] ?? null;
}

/** Whether a name has letters outside English's 26 ("München", "Española"): a spelling to correct silently only to itself. */
export function hasForeignLetters(name: string): boolean {
  return /[^\p{ASCII}]/u.test(name.replace(/[’‘ʻʼ´]/g, "'").replace(/\P{L}/gu, ''));
}
