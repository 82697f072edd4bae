/**
 * Curated city nicknames and abbreviations people and models type for a place (docs/CONTRACT.md, Location): the
 * normalised nickname (see normaliseCityName) -> the city and USPS state it stands for. Only names that mean one place
 * and are not themselves the name of another well-known place ("Frisco" is a city in Texas, "KC" two cities): a
 * nickname is read before the gazetteer, so an entry here hides any place of the same name.
 */
import { nullProto } from '../format/dict.ts';

/** One nickname's place: the city's name as the gazetteer knows it, and its state. */
export interface NicknamePlace {
  city: string;
  state: string;
}

/** Nickname (normalised) -> place. */
export const NICKNAMES: Readonly<Record<string, NicknamePlace>> = nullProto({
  nyc: { city: 'New York', state: 'NY' },
  bigapple: { city: 'New York', state: 'NY' },
  thebigapple: { city: 'New York', state: 'NY' },
  la: { city: 'Los Angeles', state: 'CA' },
  sf: { city: 'San Francisco', state: 'CA' },
  sanfran: { city: 'San Francisco', state: 'CA' },
  dc: { city: 'Washington', state: 'DC' },
  philly: { city: 'Philadelphia', state: 'PA' },
  phila: { city: 'Philadelphia', state: 'PA' },
  chitown: { city: 'Chicago', state: 'IL' },
  windycity: { city: 'Chicago', state: 'IL' },
  vegas: { city: 'Las Vegas', state: 'NV' },
  nola: { city: 'New Orleans', state: 'LA' },
  atl: { city: 'Atlanta', state: 'GA' },
  htown: { city: 'Houston', state: 'TX' },
  beantown: { city: 'Boston', state: 'MA' },
  slc: { city: 'Salt Lake City', state: 'UT' },
  okc: { city: 'Oklahoma City', state: 'OK' },
  stl: { city: 'Saint Louis', state: 'MO' },
  phx: { city: 'Phoenix', state: 'AZ' },
  abq: { city: 'Albuquerque', state: 'NM' },
  indy: { city: 'Indianapolis', state: 'IN' },
  jax: { city: 'Jacksonville', state: 'FL' },
  cincy: { city: 'Cincinnati', state: 'OH' },
  saintpete: { city: 'Saint Petersburg', state: 'FL' },
  nyny: { city: 'New York', state: 'NY' },
});

/** The place a nickname stands for (any spelling normaliseCityName folds to the same key), or null. */
export function nicknamePlace(key: string): NicknamePlace | null {
  return NICKNAMES[key] ?? null;
}
