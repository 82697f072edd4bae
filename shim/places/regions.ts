/**
 * Curated regions people name for where they are (docs/CONTRACT.md, Location): "Long Island", "the Bay Area", "DFW".
 * A region is not one point, so distances from it would mislead; it is refused, naming the region and some of its
 * cities for the caller to ask the person which one (or for their ZIP). Only names that mean one region more than any
 * place: the gazetteer read "Long Island" as Long Island City, a neighbourhood of Queens, for a person in Hempstead.
 * Read before the gazetteer, like the nicknames, so an entry here hides any place of the same name without a state.
 */
import { nullProto } from '../format/dict.ts';

/** One region: what it is, its USPS state, and its largest cities as "City, ST". */
export interface Region {
  name: string;
  state: string;
  cities: readonly string[];
}

const LONG_ISLAND: Region = {
  name: 'Long Island, NY: Nassau and Suffolk counties, with Brooklyn and Queens at its west end',
  state: 'NY',
  cities: ['Hempstead, NY', 'Huntington, NY', 'Islip, NY', 'Brooklyn, NY', 'Queens, NY'],
};
const BAY_AREA: Region = {
  name: 'the San Francisco Bay Area, CA',
  state: 'CA',
  cities: ['San Francisco, CA', 'San Jose, CA', 'Oakland, CA'],
};
const DFW: Region = {
  name: 'the Dallas-Fort Worth area, TX',
  state: 'TX',
  cities: ['Dallas, TX', 'Fort Worth, TX', 'Arlington, TX'],
};
const TWIN_CITIES: Region = {
  name: 'the Twin Cities, MN',
  state: 'MN',
  cities: ['Minneapolis, MN', 'Saint Paul, MN'],
};

/** Region name (normalised as normaliseCityName folds it) -> region. */
export const REGIONS: Readonly<Record<string, Region>> = nullProto({
  longisland: LONG_ISLAND,
  bayarea: BAY_AREA,
  thebayarea: BAY_AREA,
  sfbayarea: BAY_AREA,
  sanfranciscobayarea: BAY_AREA,
  siliconvalley: {
    name: 'Silicon Valley, CA',
    state: 'CA',
    cities: ['San Jose, CA', 'Santa Clara, CA', 'Sunnyvale, CA'],
  },
  dfw: DFW,
  dallasfortworth: DFW,
  twincities: TWIN_CITIES,
  thetwincities: TWIN_CITIES,
  tampabay: {
    name: 'the Tampa Bay area, FL',
    state: 'FL',
    cities: ['Tampa, FL', 'Saint Petersburg, FL', 'Clearwater, FL'],
  },
  southflorida: {
    name: 'South Florida',
    state: 'FL',
    cities: ['Miami, FL', 'Fort Lauderdale, FL', 'West Palm Beach, FL'],
  },
  inlandempire: {
    name: 'the Inland Empire, CA',
    state: 'CA',
    cities: ['Riverside, CA', 'San Bernardino, CA', 'Ontario, CA'],
  },
  hamptonroads: {
    name: 'Hampton Roads, VA',
    state: 'VA',
    cities: ['Virginia Beach, VA', 'Norfolk, VA', 'Newport News, VA'],
  },
});

/** The region a name stands for (any spelling normaliseCityName folds to the same key), or null. */
export function regionOf(key: string): Region | null {
  return REGIONS[key] ?? null;
}
