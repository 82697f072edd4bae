/** The states the service covers and the ways people write them: USPS codes, full names, AP-style abbreviations. */
import { nullProto } from '../format/dict.ts';
import { maxEdits, osaDistance } from './spelling.ts';

/** USPS codes the gazetteer covers (50 states, DC, PR) with their names, sorted by code. */
export const US_STATES: Readonly<Record<string, string>> = nullProto({
  AK: 'Alaska',
  AL: 'Alabama',
  AR: 'Arkansas',
  AZ: 'Arizona',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DC: 'District of Columbia',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  IA: 'Iowa',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  MA: 'Massachusetts',
  MD: 'Maryland',
  ME: 'Maine',
  MI: 'Michigan',
  MN: 'Minnesota',
  MO: 'Missouri',
  MS: 'Mississippi',
  MT: 'Montana',
  NC: 'North Carolina',
  ND: 'North Dakota',
  NE: 'Nebraska',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NV: 'Nevada',
  NY: 'New York',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  PR: 'Puerto Rico',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VA: 'Virginia',
  VT: 'Vermont',
  WA: 'Washington',
  WI: 'Wisconsin',
  WV: 'West Virginia',
  WY: 'Wyoming',
});

/** The USPS state codes the gazetteer covers, sorted. */
export const US_STATE_CODES: readonly string[] = Object.freeze(Object.keys(US_STATES).sort());

/** Other ways a state is written, lower case without dots: AP style and a few common short forms. */
const OTHER_NAMES: Readonly<Record<string, string>> = nullProto({
  ala: 'AL',
  ariz: 'AZ',
  ark: 'AR',
  calif: 'CA',
  cal: 'CA',
  colo: 'CO',
  conn: 'CT',
  del: 'DE',
  fla: 'FL',
  ill: 'IL',
  ind: 'IN',
  kan: 'KS',
  kans: 'KS',
  mass: 'MA',
  mich: 'MI',
  minn: 'MN',
  miss: 'MS',
  mont: 'MT',
  neb: 'NE',
  nebr: 'NE',
  nev: 'NV',
  okla: 'OK',
  ore: 'OR',
  penn: 'PA',
  penna: 'PA',
  tenn: 'TN',
  tex: 'TX',
  wash: 'WA',
  wva: 'WV',
  wis: 'WI',
  wisc: 'WI',
  wyo: 'WY',
  'washington dc': 'DC',
  'washington d c': 'DC',
  'puerto rico': 'PR',
});

/** Full names, lower case -> code. */
const BY_NAME: Readonly<Record<string, string>> = nullProto(
  Object.fromEntries(Object.entries(US_STATES).map(([code, name]) => [name.toLowerCase(), code])),
);

/** The longest state name in words ("District of Columbia"). */
export const STATE_NAME_MAX_WORDS = 3;

/** The USPS code of a state as written: a code ("tx", "N.Y."), a full name ("texas") or an abbreviation ("Calif."); else null. */
export function stateCodeOf(text: string): string | null {
  const t = text.trim();
  const code = t.toUpperCase().replace(/\./g, '');
  if (US_STATES[code] !== undefined) return code;
  const words = t.toLowerCase().replace(/\./g, ' ').replace(/\s+/g, ' ').trim();
  return BY_NAME[words] ?? OTHER_NAMES[words] ?? OTHER_NAMES[words.replace(/ /g, '')] ?? null;
}

/**
 * What people call a state (or two) by a name that is also a place's: "Jersey" is New Jersey more often than Jersey
 * City, NJ (the gazetteer's reading), and "Carolina" one of the Carolinas more often than Carolina, PR.
 */
const STATE_NICKNAMES: Readonly<Record<string, readonly string[]>> = nullProto({
  jersey: ['NJ'],
  carolina: ['NC', 'SC'],
  thecarolinas: ['NC', 'SC'],
  dakota: ['ND', 'SD'],
  thedakotas: ['ND', 'SD'],
});

/** Each state's full name as one lower-case word ("newyork", "districtofcolumbia") -> its code. */
const BY_KEY: Readonly<Record<string, string>> = nullProto(
  Object.fromEntries(Object.entries(US_STATES).map(([code, name]) => [name.toLowerCase().replace(/ /g, ''), code])),
);

/** The codes of the states normalised name `key` (see normaliseCityName) names: a full name or a nickname ("jersey"). */
function codesNamed(key: string): readonly string[] {
  const code = BY_KEY[key];
  return STATE_NICKNAMES[key] ?? (code === undefined ? [] : [code]);
}

/** Whether normalised name `key` (see normaliseCityName) is a state's full name ("newyork", "washington") or nickname ("jersey"). */
export function isStateName(key: string): boolean {
  return codesNamed(key).length > 0;
}

/** The states normalised name `key` names, by their full names ("New Jersey"; "North Carolina or South Carolina"), or null. */
export function statesNamed(key: string): string | null {
  const codes = codesNamed(key);
  return codes.length === 0 ? null : codes.map((c) => US_STATES[c] ?? c).join(' or ');
}

/** The codes of the states whose full name `text` is a slip of ("Ilinois" -> IL), by the spelling rule's edits; none under 4 letters. */
export function statesSpelledNear(text: string): string[] {
  const key = text.toLowerCase().replace(/[^a-z]/g, '');
  if (key.length < 4) return [];
  const max = maxEdits(key.length);
  return Object.entries(BY_KEY)
    .filter(([name]) => osaDistance(key, name, max) <= max)
    .map(([, code]) => code);
}
