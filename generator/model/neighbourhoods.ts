/**
 * Well-known parts of large US cities that a person names alone ("Pilsen", "Bel Air") and that the gazetteer cannot
 * answer for: GeoNames holds no place for them, or holds a town elsewhere of the same name (Bel Air, MD) or a city
 * abroad (Pilsen, Czechia; Gold Coast, Australia). Each is written into its names document as the city it is part of
 * (gazetteer-index.ts `parts`), and the resolver asks which place is meant instead of answering from the namesake or
 * refusing the name as abroad (shim/places/resolve-name.ts). Only names a person would plausibly send for the city
 * part are listed, and none the gazetteer already holds as the city part (Harlem, Hyde Park, Hollywood and Lincoln
 * Park are places there, and asked about beside their namesakes).
 * Each city must be in the gazetteer (the build fails otherwise).
 */

/** One city part: its name as people write it, and the city and state it is part of. */
export type CityPart = readonly [name: string, city: string, state: string];

/** The city parts, by name; a name that is part of two cities is listed once per city. */
export const CITY_PARTS: readonly CityPart[] = [
  ['Back Bay', 'Boston', 'MA'],
  ['Beacon Hill', 'Boston', 'MA'],
  ['Bel Air', 'Los Angeles', 'CA'],
  ['Buckhead', 'Atlanta', 'GA'],
  ['Capitol Hill', 'Seattle', 'WA'],
  ['Capitol Hill', 'Washington', 'DC'],
  ['Georgetown', 'Washington', 'DC'],
  ['Gold Coast', 'Chicago', 'IL'],
  ['Little Havana', 'Miami', 'FL'],
  ['Pilsen', 'Chicago', 'IL'],
  ['SoHo', 'New York', 'NY'],
  ['South Beach', 'Miami Beach', 'FL'],
  ['Tribeca', 'New York', 'NY'],
  ['Wicker Park', 'Chicago', 'IL'],
];
