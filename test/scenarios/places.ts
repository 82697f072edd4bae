/**
 * Places as people name them, each with the outcome a person relaying the answer should get (docs/CONTRACT.md,
 * Location). Read by test/scenarios/places.test.ts over REST and MCP alike. `near` points are the place's centre.
 */

/** Arguments of one search, as an assistant would pass them (REST query or MCP tool arguments). */
export type Args = { location: string } | { zip: string } | { lat: number; lng: number };

/** What the first call must answer. */
export type Outcome =
  /** 200, the point within `miles` of `near`, in `state`; covered or not (unchecked when absent); `note` when the answer must say something. */
  | { resolved: { near: [number, number]; miles: number; state: string; covered?: boolean; note?: RegExp } }
  /** 400 saying the place is abroad (`named`: the detail names it), the US places of its name as candidates when `states`. */
  | { abroad: { named: RegExp; states?: string[] } }
  /** 400 ambiguous_location whose candidates start with these states, most populous first. */
  | { ambiguous: { states: string[] } }
  /** 400 with `code`, the detail saying what to do instead (`fix`); `then` is that fix, when it is a location to send. */
  | { refused: { code: string; fix: RegExp; then?: string } };

/** One request in a person's words. */
export interface Scenario {
  says: string;
  args: Args;
  expect: Outcome;
  /**
   * Where the person really is, when it differs from the answer's expected point (a neighbourhood answered from its
   * city's centre), or 'abroad': an answer farther than MISLEADING_MILES from it, or any answer for a place abroad,
   * misleads. Resolved outcomes default to their `near`.
   */
  means?: [number, number] | 'abroad';
}

/** An answer (or the place a refusal suggests) this far from where the person is misleads them, in miles. */
export const MISLEADING_MILES = 25;

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

const at = (near: [number, number], miles: number, state: string, covered?: boolean, note?: RegExp): Outcome => ({
  resolved: {
    near,
    miles,
    state,
    ...(covered === undefined ? {} : { covered }),
    ...(note === undefined ? {} : { note }),
  },
});
const abroad = (named: RegExp, states?: string[]): Outcome => ({
  abroad: { named, ...(states === undefined ? {} : { states }) },
});
/** A place inside a named city: answered within `miles` of where the person is (the place, or its city's centre). */
const inCity = (says: string, means: [number, number], state: string, miles = 10, note?: RegExp): Scenario => ({
  says,
  args: loc(says),
  expect: at(means, miles, state, undefined, note),
});
/** A point: answered in `state`, or refused as abroad in `country`. */
const point = (says: string, lat: number, lng: number, where: string): Scenario =>
  where.length === 2
    ? { says, args: { lat, lng }, expect: at([lat, lng], 0.01, where) }
    : {
        says,
        args: { lat, lng },
        expect: abroad(new RegExp(`in ${where}, outside the United States`)),
        means: 'abroad',
      };
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
  { says: 'Chicgo, IL', args: loc('Chicgo, IL'), expect: at(CHICAGO, 5, 'IL', true, /read as Chicago, IL/) },
  {
    says: 'Pittsburg, PA',
    args: loc('Pittsburg, PA'),
    expect: at([40.4406, -79.9959], 5, 'PA', false, /read as Pittsburgh, PA/),
  },
  {
    says: 'Philadelpia, PA',
    args: loc('Philadelpia, PA'),
    expect: at(PHILLY, 5, 'PA', true, /read as Philadelphia, PA/),
  },
  {
    says: 'Sacremento, CA',
    args: loc('Sacremento, CA'),
    expect: at([38.5816, -121.4944], 5, 'CA', true, /read as Sacramento, CA/),
  },
  { says: 'Chicgo', args: loc('Chicgo'), expect: at(CHICAGO, 5, 'IL', true, /read as Chicago/) },
  // Names several states share, and names with one dominant place.
  { says: 'Springfield', args: loc('Springfield'), expect: { ambiguous: { states: ['MO', 'MA', 'IL'] } } },
  { says: 'Portland', args: loc('Portland'), expect: { ambiguous: { states: ['OR', 'ME'] } } },
  { says: 'Columbus', args: loc('Columbus'), expect: { ambiguous: { states: ['OH', 'GA'] } } },
  { says: 'Kansas City', args: loc('Kansas City'), expect: { ambiguous: { states: ['MO', 'KS'] } } },
  { says: 'Washington', args: loc('Washington'), expect: { ambiguous: { states: ['DC'] } } },
  // Well-known neighbourhoods sent alone: their city first, then the places of the name.
  { says: 'Pilsen', args: loc('Pilsen'), expect: { ambiguous: { states: ['IL'] } } },
  { says: 'Bel Air', args: loc('Bel Air'), expect: { ambiguous: { states: ['CA', 'MD'] } } },
  { says: 'Georgetown', args: loc('Georgetown'), expect: { ambiguous: { states: ['DC', 'TX'] } } },
  { says: 'Capitol Hill', args: loc('Capitol Hill'), expect: { ambiguous: { states: ['WA', 'DC'] } } },
  { says: 'Austin', args: loc('Austin'), expect: at(AUSTIN, 5, 'TX', true, /read as Austin, TX.*Austin, MN/) },
  { says: 'Houston', args: loc('Houston'), expect: at(HOUSTON, 5, 'TX', true, /read as Houston, TX/) },
  {
    says: 'Chicago',
    args: loc('Chicago'),
    expect: at(CHICAGO, 5, 'IL', true, /no other state has a place of that name/),
  },
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
    expect: at(
      [39.8017, -89.6437],
      5,
      'IL',
      false,
      // Springfield, IL is not covered: no distances, so nothing of where they are from or of a closer point.
      /street address "123 Main St" is not located by this service \(only a ZIP or "lat,lng" is\)\.$/,
    ),
  },
  {
    says: '1600 Pennsylvania Ave NW, Washington, DC',
    args: loc('1600 Pennsylvania Ave NW, Washington, DC'),
    expect: at(DC, 5, 'DC', true, /street address "1600 Pennsylvania Ave NW" is not located/),
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
      /outside the United States.*The two numbers look swapped \(longitude first\); send "40\.7128,-74\.0060"/,
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
    expect: refused(
      'location_not_understood',
      /lat and lng look swapped: .* send lat=41\.8781 and lng=-87\.6298/,
      '41.8781,-87.6298',
    ),
  },
  // Abroad.
  {
    says: 'London',
    args: loc('51.5074,-0.1278'),
    expect: abroad(
      /in United Kingdom, outside the United States.*covers US locations only: the 50 states, DC and Puerto Rico/,
    ),
    means: 'abroad',
  },
  {
    says: 'Paris',
    args: loc('48.8566,2.3522'),
    expect: abroad(/in France, outside the United States/),
    means: 'abroad',
  },
  {
    says: 'Sydney',
    args: loc('-33.8688,151.2093'),
    expect: abroad(/is a point outside the United States/),
    means: 'abroad',
  },
  {
    says: 'Toronto, ON',
    args: loc('Toronto, ON'),
    expect: abroad(/Toronto, Ontario, Canada is outside the United States/, ['OH']),
    means: 'abroad',
  },
  {
    says: 'Hagatna, Guam',
    args: loc('Hagatna, GU'),
    expect: abroad(/GU \(Guam\) is not covered/),
    means: 'abroad',
  },
  // Places the directory does not measure.
  { says: 'New Haven, CT', args: loc('New Haven, CT'), expect: at([41.3083, -72.9279], 5, 'CT', false) },
  { says: 'Billings, MT', args: loc('Billings, MT'), expect: at([45.7833, -108.5007], 5, 'MT', false) },
  { says: 'Boise, Idaho', args: loc('Boise, Idaho'), expect: at([43.615, -116.2023], 5, 'ID', false) },

  // Places inside a named city: neighbourhoods, landmarks, roads and addresses, in many metros (issue 33).
  inCity(
    'Buckhead, Atlanta, GA',
    [33.8381, -84.3799],
    'GA',
    10,
    /"Buckhead" is not a place.*Buckhead, GA is 63 mi away/,
  ),
  inCity('Bridgeport, Chicago, IL', [41.8381, -87.6511], 'IL'),
  inCity('Westwood, Los Angeles, CA', [34.0561, -118.4297], 'CA', 15, /Westwood, CA is \d+ mi away and was not used/),
  inCity('Chelsea, Manhattan, NY', [40.7465, -74.0014], 'NY', 5),
  inCity('Kingwood, Houston, TX', [30.0499, -95.1849], 'TX', 25, /send "Kingwood, TX"/),
  inCity(
    'Astrodome, Houston, TX',
    [29.6847, -95.4078],
    'TX',
    10,
    /"Astrodome" is not a place.*ZIP code gives a closer point/,
  ),
  inCity('South Side, Chicago, IL', [41.78, -87.62], 'IL'),
  inCity('Prospect Park, Brooklyn, NY', [40.6602, -73.969], 'NY', 5),
  inCity('Pearl District, Portland, OR', [45.5289, -122.6819], 'OR', 5),
  inCity('I-10 near Baytown, TX', [29.7355, -94.9774], 'TX', 5, /"I-10" is not a place/),
  inCity('Fenway Park, Boston, MA', [42.3467, -71.0972], 'MA', 5),
  inCity('Harlem, New York, NY', [40.8079, -73.9454], 'NY', 2, /Read as Harlem, NY/),
  inCity('Koreatown, Los Angeles, CA', [34.0578, -118.3009], 'CA', 2, /Read as Koreatown, CA/),
  inCity('Hyde Park, Chicago, IL', [41.7942, -87.5939], 'IL', 2, /Read as Hyde Park, IL/),
  inCity('Brooklyn, New York, NY', [40.6782, -73.9442], 'NY', 5),
  inCity('Venice, Los Angeles, CA', [33.985, -118.4695], 'CA', 3),
  inCity('350 5th Ave, New York, NY', [40.7484, -73.9857], 'NY', 5, /street address "350 5th Ave"/),
  inCity('Wrigley Field, Chicago, IL', [41.9484, -87.6553], 'IL', 10),
  inCity('Midtown, Atlanta, GA', [33.7838, -84.383], 'GA'),
  inCity('Wicker Park, Chicago, IL', [41.9088, -87.6796], 'IL'),
  inCity('Capitol Hill, Seattle, WA', [47.6253, -122.3222], 'WA'),
  inCity('Ballard, Seattle, WA', [47.6677, -122.3848], 'WA'),
  inCity('Mission District, San Francisco, CA', [37.7599, -122.4148], 'CA'),
  inCity('Back Bay, Boston, MA', [42.3503, -71.081], 'MA'),
  inCity('Dorchester, Boston, MA', [42.3016, -71.0676], 'MA'),
  inCity('Deep Ellum near Dallas, TX', [32.7842, -96.7836], 'TX'),
  inCity('Montrose in Houston, TX', [29.745, -95.39], 'TX'),
  inCity('Wynwood, Miami, FL', [25.801, -80.1994], 'FL'),
  inCity('Little Havana, Miami, FL', [25.766, -80.2195], 'FL'),
  inCity('Ybor City, Tampa, FL', [27.96, -82.437], 'FL'),
  inCity('Georgetown, Washington, DC', [38.9097, -77.0654], 'DC'),
  inCity('Fishtown, Philadelphia, PA', [39.9713, -75.1307], 'PA'),
  inCity('Hollywood, Los Angeles, CA', [34.0928, -118.3287], 'CA'),
  inCity('The Strip, Las Vegas, NV', [36.1147, -115.1728], 'NV'),
  inCity('French Quarter, New Orleans, LA', [29.9584, -90.0644], 'LA'),
  inCity('LoDo, Denver, CO', [39.753, -105.0], 'CO'),
  inCity('The Alamo, San Antonio, TX', [29.426, -98.4861], 'TX'),
  inCity('I-95 near Fort Lauderdale, FL', [26.1224, -80.1373], 'FL'),
  inCity('5th Avenue and 42nd Street, New York, NY', [40.7531, -73.9822], 'NY'),
  inCity('Lake in the Hills, IL', [42.1817, -88.3304], 'IL', 3),
  // Places abroad by name: the place abroad first, US places of its name as candidates.
  {
    says: 'Toronto',
    args: loc('Toronto'),
    expect: abroad(/^Toronto, Canada is outside the United States/, ['OH']),
    means: 'abroad',
  },
  {
    says: 'Vancouver',
    args: loc('Vancouver'),
    expect: abroad(/^Vancouver, Canada is outside.*"Vancouver, WA"/, ['WA']),
    means: 'abroad',
  },
  {
    says: 'London',
    args: loc('London'),
    expect: abroad(/^London, United Kingdom is outside/, ['OH']),
    means: 'abroad',
  },
  { says: 'Paris', args: loc('Paris'), expect: abroad(/^Paris, France is outside/, ['TX']), means: 'abroad' },
  { says: 'Montreal', args: loc('Montreal'), expect: abroad(/^Montréal, Canada is outside/), means: 'abroad' },
  {
    says: 'Mexico City',
    args: loc('Mexico City'),
    expect: abroad(/"Mexico City" is Mexico City, Mexico, outside the United States/),
    means: 'abroad',
  },
  { says: 'Tokyo', args: loc('Tokyo'), expect: abroad(/Tokyo, Japan, outside the United States/), means: 'abroad' },
  {
    says: 'Toronto, Canada',
    args: loc('Toronto, Canada'),
    expect: abroad(/^Toronto, Canada is outside/, ['OH']),
    means: 'abroad',
  },
  {
    says: 'London, England',
    args: loc('London, England'),
    expect: abroad(/^London, England \(United Kingdom\) is outside/),
    means: 'abroad',
  },
  { says: 'Paris, France', args: loc('Paris, France'), expect: abroad(/^Paris, France is outside/), means: 'abroad' },
  {
    says: 'Vancouver, BC',
    args: loc('Vancouver, BC'),
    expect: abroad(/^Vancouver, British Columbia, Canada is outside/),
    means: 'abroad',
  },
  { says: 'Vancouver, WA', args: loc('Vancouver, WA'), expect: at([45.6387, -122.6615], 5, 'WA', true) },
  { says: 'Paris, TX', args: loc('Paris, TX'), expect: at([33.6609, -95.5555], 5, 'TX', false) },
  { says: 'London, KY', args: loc('London, KY'), expect: at([37.129, -84.0833], 5, 'KY', false) },
  // Points at borders, coasts and islands.
  point('Windsor, Ontario, by GPS', 42.3149, -83.0364, 'Canada'),
  point('downtown Detroit, by GPS', 42.3314, -83.0458, 'MI'),
  point('Tijuana, by GPS', 32.5149, -117.0382, 'Mexico'),
  point('San Ysidro, by GPS', 32.5556, -117.047, 'CA'),
  point('Niagara Falls, Ontario, by GPS', 43.0896, -79.0849, 'Canada'),
  point('Niagara Falls, NY, by GPS', 43.0962, -79.0377, 'NY'),
  point('Ciudad Juárez, by GPS', 31.6904, -106.4245, 'Mexico'),
  point('El Paso, by GPS', 31.7619, -106.485, 'TX'),
  point('Vancouver, BC, by GPS', 49.2827, -123.1207, 'Canada'),
  point('Blaine, WA, by GPS', 48.994, -122.7471, 'WA'),
  point('Toronto, by GPS', 43.6532, -79.3832, 'Canada'),
  point('Montreal, by GPS', 45.5017, -73.5673, 'Canada'),
  point('Key West, by GPS', 24.5551, -81.78, 'FL'),
  point('Cape Hatteras, by GPS', 35.2193, -75.6907, 'NC'),
  point('Honolulu, by GPS', 21.3069, -157.8583, 'HI'),
  point('Anchorage, by GPS', 61.2181, -149.9003, 'AK'),
  point('Old San Juan, by GPS', 18.4655, -66.1057, 'PR'),
  // Misspellings: one clear reading answered with a note; otherwise suggestions.
  { says: 'Pheonix', args: loc('Pheonix'), expect: at([33.4484, -112.074], 5, 'AZ', true, /read as Phoenix/) },
  {
    says: 'Pheonix, AZ',
    args: loc('Pheonix, AZ'),
    expect: at([33.4484, -112.074], 5, 'AZ', true, /read as Phoenix, AZ/),
  },
  { says: 'Hueston, TX', args: loc('Hueston, TX'), expect: at(HOUSTON, 5, 'TX', true, /read as Houston, TX/) },
  {
    says: 'Cincinatti, OH',
    args: loc('Cincinatti, OH'),
    expect: at([39.1031, -84.512], 5, 'OH', false, /read as Cincinnati/),
  },
  {
    says: 'St Pete, FL',
    args: loc('St Pete, FL'),
    expect: at([27.7676, -82.6403], 5, 'FL', true, /Read "St Pete" as St\. Petersburg/),
  },
  { says: 'Los Angelas, CA', args: loc('Los Angelas, CA'), expect: at(LA, 5, 'CA', true, /read as Los Angeles/) },
  { says: 'San Fransisco, CA', args: loc('San Fransisco, CA'), expect: at(SF, 5, 'CA', true, /read as San Francisco/) },
  { says: 'Philidelphia', args: loc('Philidelphia'), expect: at(PHILLY, 5, 'PA', true, /read as Philadelphia/) },
  { says: 'Seatle, WA', args: loc('Seatle, WA'), expect: at([47.6062, -122.3321], 5, 'WA', true, /read as Seattle/) },
  { says: 'Tuscon, AZ', args: loc('Tuscon, AZ'), expect: at([32.2226, -110.9747], 5, 'AZ', false, /read as Tucson/) },
  {
    says: 'Albequerque, NM',
    args: loc('Albequerque, NM'),
    expect: at([35.0844, -106.6504], 5, 'NM', false, /read as Albuquerque/),
  },
  {
    says: 'Urbna, IL (a smaller town)',
    args: loc('Urbna, IL'),
    expect: refused('location_not_understood', /Did you mean "Urbana, IL"/, 'Urbana, IL'),
    means: [40.1106, -88.2073],
  },
  // Refusals whose next step recovers the search.
  {
    says: 'lawyers near me',
    args: loc('lawyers near me'),
    expect: refused('location_not_understood', /Ask the person for their city or ZIP code/, 'Austin, TX'),
  },
  {
    says: 'my ZIP, read as a number (2139)',
    args: { zip: '2139' },
    expect: refused('invalid_parameter', /send zip=02139/, '02139'),
  },
  {
    says: 'San Antonio with lat and lng swapped',
    args: { lat: -98.4936, lng: 29.4241 },
    expect: refused('invalid_parameter', /send lat=29\.4241&lng=-98\.4936/, '29.4241,-98.4936'),
  },
];
