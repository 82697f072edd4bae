/**
 * Places as people name them, each with the outcome a person relaying the answer should get (docs/CONTRACT.md,
 * Location). Read by test/scenarios/places.test.ts over REST and MCP alike. `near` points are the place's centre.
 */

/** Arguments of one search, as an assistant would pass them (REST query or MCP tool arguments). */
export type Args = { location: string } | { zip: string } | { lat: number; lng: number };

/** What the first call must answer. */
export type Outcome =
  /** 200, the point within `miles` of `near`, in `state`; covered or not; `note` when the answer must say something. */
  | { resolved: { near: [number, number]; miles: number; state: string; covered: boolean; note?: RegExp } }
  /** 400 ambiguous_location whose candidates start with these states, most populous first. */
  | { ambiguous: { states: string[] } }
  /** 400 with `code`, the detail saying what to do instead (`fix`); `then` is that fix, when it is a location to send. */
  | { refused: { code: string; fix: RegExp; then?: string } };

/** One request in a person's words. */
export interface Scenario {
  says: string;
  args: Args;
  expect: Outcome;
}

const NYC: [number, number] = [40.7128, -74.006];
const LA: [number, number] = [34.0522, -118.2437];
const CHICAGO: [number, number] = [41.8781, -87.6298];
const PHILLY: [number, number] = [39.9526, -75.1652];
const SF: [number, number] = [37.7749, -122.4194];
const DC: [number, number] = [38.9072, -77.0369];
const AUSTIN: [number, number] = [30.2672, -97.7431];
const HOUSTON: [number, number] = [29.7604, -95.3698];
const BOSTON: [number, number] = [42.3601, -71.0589];
const ATLANTA: [number, number] = [33.749, -84.388];

const at = (near: [number, number], miles: number, state: string, covered: boolean, note?: RegExp): Outcome => ({
  resolved: { near, miles, state, covered, ...(note === undefined ? {} : { note }) },
});
const refused = (code: string, fix: RegExp, then?: string): Outcome => ({
  refused: { code, fix, ...(then === undefined ? {} : { then }) },
});
const loc = (location: string): Args => ({ location });

/** The suite: at least 60 requests across every way people and models name a place. */
export const SCENARIOS: Scenario[] = [
  // Places named with the state, in the ways people write it.
  { says: 'I live in Chicago, Illinois', args: loc('Chicago, Illinois'), expect: at(CHICAGO, 5, 'IL', true) },
  { says: 'Anchorage, Alaska', args: loc('Anchorage, Alaska'), expect: at([61.2181, -149.9003], 5, 'AK', false) },
  { says: 'Saint Paul, Minnesota', args: loc('Saint Paul, Minnesota'), expect: at([44.9537, -93.09], 5, 'MN', true) },
  {
    says: 'Washington, District of Columbia',
    args: loc('Washington, District of Columbia'),
    expect: at(DC, 5, 'DC', true),
  },
  { says: 'Austin Texas', args: loc('Austin Texas'), expect: at(AUSTIN, 5, 'TX', true) },
  { says: 'New York, NY', args: loc('New York, NY'), expect: at(NYC, 10, 'NY', true) },
  { says: 'Brooklyn NY', args: loc('Brooklyn NY'), expect: at([40.6782, -73.9442], 5, 'NY', true) },
  { says: 'St. Louis, MO', args: loc('St. Louis, MO'), expect: at([38.627, -90.1994], 5, 'MO', true) },
  { says: 'Ft. Worth, TX', args: loc('Ft. Worth, TX'), expect: at([32.7555, -97.3308], 5, 'TX', true) },
  { says: 'Seattle, WA, USA', args: loc('Seattle, WA, USA'), expect: at([47.6062, -122.3321], 5, 'WA', true) },
  { says: 'Miami, Fla.', args: loc('Miami, Fla.'), expect: at([25.7617, -80.1918], 5, 'FL', true) },
  { says: 'Portland, Oregon', args: loc('Portland, Oregon'), expect: at([45.5152, -122.6784], 5, 'OR', true) },
  { says: 'Portland, ME', args: loc('Portland, ME'), expect: at([43.6591, -70.2568], 5, 'ME', false) },
  {
    says: 'San Juan, Puerto Rico',
    args: loc('San Juan, Puerto Rico'),
    expect: at([18.4655, -66.1057], 5, 'PR', false),
  },
  { says: 'Honolulu, HI', args: loc('Honolulu, HI'), expect: at([21.3069, -157.8583], 5, 'HI', false) },
  { says: 'Houston, TX 77002', args: loc('Houston, TX 77002'), expect: at(HOUSTON, 3, 'TX', true) },
  {
    says: 'Chicago, Illinois 60606',
    args: loc('Chicago, Illinois 60606'),
    expect: at([41.8827, -87.6375], 2, 'IL', true),
  },
  {
    says: '233 S Wacker Dr, Chicago, IL 60606',
    args: loc('233 S Wacker Dr, Chicago, IL 60606'),
    expect: at([41.8827, -87.6375], 2, 'IL', true),
  },
  // ZIPs, ZIP+4, and ZIPs with no area of their own.
  { says: 'my ZIP is 10001', args: { zip: '10001' }, expect: at(NYC, 5, 'NY', true) },
  { says: '90210', args: loc('90210'), expect: at([34.103, -118.4105], 3, 'CA', true) },
  { says: '60601-1234', args: loc('60601-1234'), expect: at(CHICAGO, 3, 'IL', true) },
  { says: '02108 (Boston)', args: loc('02108'), expect: at(BOSTON, 3, 'MA', true) },
  { says: '59001 in Montana', args: loc('59001'), expect: at([45.52, -109.44], 15, 'MT', false) },
  {
    says: "60666, O'Hare's ZIP",
    args: loc('60666'),
    expect: at(CHICAGO, 20, 'IL', true, /Approximate point: ZIP 60666 has no area of its own/),
  },
  {
    says: '20500, the White House',
    args: loc('20500'),
    expect: at(DC, 3, 'DC', true, /ZIP 20500 has no area of its own/),
  },
  // Nicknames.
  { says: 'NYC', args: loc('NYC'), expect: at(NYC, 10, 'NY', true, /Read "NYC" as New York, NY/) },
  { says: 'NYC, NY', args: loc('NYC, NY'), expect: at(NYC, 10, 'NY', true, /Read "NYC" as New York/) },
  { says: 'Philly', args: loc('Philly'), expect: at(PHILLY, 5, 'PA', true) },
  { says: 'LA', args: loc('LA'), expect: at(LA, 5, 'CA', true) },
  { says: 'SF', args: loc('SF'), expect: at(SF, 5, 'CA', true) },
  { says: 'DC', args: loc('DC'), expect: at(DC, 5, 'DC', true) },
  { says: 'Chi-town', args: loc('Chi-town'), expect: at(CHICAGO, 5, 'IL', true) },
  { says: 'ATL', args: loc('ATL'), expect: at(ATLANTA, 5, 'GA', true) },
  { says: 'Vegas', args: loc('Vegas'), expect: at([36.1699, -115.1398], 5, 'NV', false) },
  { says: 'NOLA', args: loc('NOLA'), expect: at([29.9511, -90.0715], 5, 'LA', false) },
  {
    says: 'Venice LA (meaning Venice, Los Angeles)',
    args: loc('Venice LA'),
    expect: at([29.1675, -89.2163], 5, 'LA', false, /"LA" is also short for Los Angeles.*"Venice, CA"/),
  },
  {
    says: 'Venice, LA (the comma added by an assistant)',
    args: loc('Venice, LA'),
    expect: at([29.1675, -89.2163], 5, 'LA', false, /"LA" is also short for Los Angeles/),
  },
  { says: 'Venice, CA', args: loc('Venice, CA'), expect: at([33.985, -118.4695], 3, 'CA', true) },
  // Typos.
  {
    says: 'Chicgo, IL',
    args: loc('Chicgo, IL'),
    expect: refused('location_not_understood', /Did you mean "Chicago, IL"/, 'Chicago, IL'),
  },
  {
    says: 'Pittsburg, PA',
    args: loc('Pittsburg, PA'),
    expect: refused('location_not_understood', /Did you mean "Pittsburgh, PA"/, 'Pittsburgh, PA'),
  },
  {
    says: 'Philadelpia, PA',
    args: loc('Philadelpia, PA'),
    expect: refused('location_not_understood', /Did you mean "Philadelphia, PA"/, 'Philadelphia, PA'),
  },
  {
    says: 'Sacremento, CA',
    args: loc('Sacremento, CA'),
    expect: refused('location_not_understood', /Did you mean "Sacramento, CA"/, 'Sacramento, CA'),
  },
  {
    says: 'Chicgo',
    args: loc('Chicgo'),
    expect: refused('location_not_understood', /Did you mean "Chicago, IL"/, 'Chicago, IL'),
  },
  // Names several states share, and names with one dominant place.
  { says: 'Springfield', args: loc('Springfield'), expect: { ambiguous: { states: ['MO', 'MA', 'IL'] } } },
  { says: 'Portland', args: loc('Portland'), expect: { ambiguous: { states: ['OR', 'ME'] } } },
  { says: 'Columbus', args: loc('Columbus'), expect: { ambiguous: { states: ['OH', 'GA'] } } },
  { says: 'Kansas City', args: loc('Kansas City'), expect: { ambiguous: { states: ['MO', 'KS'] } } },
  { says: 'Washington', args: loc('Washington'), expect: { ambiguous: { states: ['DC'] } } },
  { says: 'Austin', args: loc('Austin'), expect: at(AUSTIN, 5, 'TX', true, /read as Austin, TX.*Austin, MN/) },
  { says: 'Houston', args: loc('Houston'), expect: at(HOUSTON, 5, 'TX', true, /read as Houston, TX/) },
  { says: 'Chicago', args: loc('Chicago'), expect: at(CHICAGO, 5, 'IL', true, /the only US place of that name/) },
  { says: 'Brooklyn', args: loc('Brooklyn'), expect: at([40.6782, -73.9442], 5, 'NY', true, /Brooklyn, OH/) },
  { says: 'New York', args: loc('New York'), expect: at(NYC, 10, 'NY', true) },
  {
    says: 'Jacksonville',
    args: loc('Jacksonville'),
    expect: at([30.3322, -81.6557], 5, 'FL', false, /Jacksonville, NC/),
  },
  { says: 'Albuquerque', args: loc('Albuquerque'), expect: at([35.0844, -106.6504], 5, 'NM', false) },
  // Counties and street addresses without a ZIP.
  {
    says: 'Harris County, TX',
    args: loc('Harris County, TX'),
    expect: refused('location_not_understood', /names a county.*ZIP code or their city/),
  },
  {
    says: 'Cook County, IL',
    args: loc('Cook County, IL'),
    expect: refused('location_not_understood', /names a county/),
  },
  { says: 'Orange County', args: loc('Orange County'), expect: refused('location_not_understood', /names a county/) },
  {
    says: '123 Main St, Springfield, IL',
    args: loc('123 Main St, Springfield, IL'),
    expect: refused('location_not_understood', /street address.*ZIP.*"Springfield, IL"/, 'Springfield, IL'),
  },
  {
    says: '1600 Pennsylvania Ave NW, Washington, DC',
    args: loc('1600 Pennsylvania Ave NW, Washington, DC'),
    expect: refused('location_not_understood', /street address.*"Washington, DC"/, 'Washington, DC'),
  },
  {
    says: '350 5th Ave New York NY',
    args: loc('350 5th Ave New York NY'),
    expect: refused('location_not_understood', /street address.*5-digit ZIP/),
  },
  // Coordinates in several notations.
  { says: '40.7128,-74.0060', args: loc('40.7128,-74.0060'), expect: at(NYC, 0.01, 'NY', true) },
  { says: '40.7128° N, 74.0060° W', args: loc('40.7128° N, 74.0060° W'), expect: at(NYC, 0.01, 'NY', true) },
  { says: '40.7128 N 74.0060 W', args: loc('40.7128 N 74.0060 W'), expect: at(NYC, 0.01, 'NY', true) },
  { says: '40°42\'46"N 74°0\'22"W', args: loc('40°42\'46"N 74°0\'22"W'), expect: at(NYC, 0.1, 'NY', true) },
  { says: '34.0522 -118.2437', args: loc('34.0522 -118.2437'), expect: at(LA, 0.01, 'CA', true) },
  { says: 'lat 41.8781, lng -87.6298', args: { lat: 41.8781, lng: -87.6298 }, expect: at(CHICAGO, 0.01, 'IL', true) },
  { says: 'Rapid City, by coordinates', args: loc('44.08,-103.23'), expect: at([44.08, -103.23], 0.01, 'SD', false) },
  // Swapped and unsigned coordinates.
  {
    says: '-74.0060,40.7128 (GeoJSON order)',
    args: loc('-74.0060,40.7128'),
    expect: refused(
      'location_not_understood',
      /outside the United States.*Did you mean "40\.7128,-74\.0060"/,
      '40.7128,-74.0060',
    ),
  },
  {
    says: '40.7128,74.0060 (W sign dropped)',
    args: loc('40.7128,74.0060'),
    expect: refused('location_not_understood', /Did you mean "40\.7128,-74\.0060"/, '40.7128,-74.0060'),
  },
  {
    says: '-118.2437,34.0522',
    args: loc('-118.2437,34.0522'),
    expect: refused('invalid_parameter', /"34\.0522,-118\.2437"/, '34.0522,-118.2437'),
  },
  {
    says: '41.8781,87.6298',
    args: loc('41.8781,87.6298'),
    expect: refused('location_not_understood', /Did you mean "41\.8781,-87\.6298"/, '41.8781,-87.6298'),
  },
  {
    says: 'lng first as separate numbers',
    args: { lat: -87.6298, lng: 41.8781 },
    expect: refused('location_not_understood', /Did you mean "41\.8781,-87\.6298"/, '41.8781,-87.6298'),
  },
  // Abroad.
  {
    says: 'London',
    args: loc('51.5074,-0.1278'),
    expect: refused(
      'location_not_understood',
      /in United Kingdom, outside the United States.*covers US locations only: the 50 states, DC and Puerto Rico/,
    ),
  },
  {
    says: 'Paris',
    args: loc('48.8566,2.3522'),
    expect: refused('location_not_understood', /outside the United States/),
  },
  {
    says: 'Sydney',
    args: loc('-33.8688,151.2093'),
    expect: refused('location_not_understood', /outside the United States/),
  },
  {
    says: 'Toronto, ON',
    args: loc('Toronto, ON'),
    expect: refused('location_not_understood', /"ON" is not a USPS state code/),
  },
  {
    says: 'Hagatna, Guam',
    args: loc('Hagatna, GU'),
    expect: refused('location_not_understood', /GU \(Guam\) is not covered/),
  },
  // Places the directory does not measure.
  { says: 'New Haven, CT', args: loc('New Haven, CT'), expect: at([41.3083, -72.9279], 5, 'CT', false) },
  { says: 'Billings, MT', args: loc('Billings, MT'), expect: at([45.7833, -108.5007], 5, 'MT', false) },
  { says: 'Boise, Idaho', args: loc('Boise, Idaho'), expect: at([43.615, -116.2023], 5, 'ID', false) },
];
