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

const SOUTHERN_CALIFORNIA: Region = {
  name: 'Southern California',
  state: 'CA',
  cities: ['Los Angeles, CA', 'San Diego, CA', 'Riverside, CA'],
};
const NORTHERN_CALIFORNIA: Region = {
  name: 'Northern California',
  state: 'CA',
  cities: ['San Jose, CA', 'San Francisco, CA', 'Sacramento, CA'],
};
const JERSEY_SHORE: Region = {
  name: 'the Jersey Shore, NJ: the coast of Monmouth, Ocean, Atlantic and Cape May counties',
  state: 'NJ',
  cities: ['Toms River, NJ', 'Atlantic City, NJ', 'Asbury Park, NJ'],
};
const TRI_STATE: Region = {
  name: 'the New York tri-state area (New York, New Jersey and Connecticut)',
  state: 'NY',
  cities: ['New York, NY', 'Newark, NJ', 'Stamford, CT'],
};

const HAMPTONS: Region = {
  name: 'the Hamptons, NY: the South Fork of Long Island',
  state: 'NY',
  cities: ['Southampton, NY', 'East Hampton, NY', 'Westhampton Beach, NY'],
};
const POCONOS: Region = {
  name: 'the Poconos, PA',
  state: 'PA',
  cities: ['Stroudsburg, PA', 'East Stroudsburg, PA', 'Tannersville, PA'],
};
const CATSKILLS: Region = {
  name: 'the Catskills, NY',
  state: 'NY',
  cities: ['Kingston, NY', 'Catskill, NY', 'Hunter, NY'],
};
const ADIRONDACKS: Region = {
  name: 'the Adirondacks, NY',
  state: 'NY',
  cities: ['Lake Placid, NY', 'Saranac Lake, NY', 'Old Forge, NY'],
};
const OZARKS: Region = {
  name: 'the Ozarks (Missouri, Arkansas, Oklahoma and Kansas)',
  state: 'MO',
  cities: ['Springfield, MO', 'Branson, MO', 'Fayetteville, AR'],
};
const FLORIDA_KEYS: Region = {
  name: 'the Florida Keys, FL',
  state: 'FL',
  cities: ['Key West, FL', 'Marathon, FL', 'Key Largo, FL'],
};
const OUTER_BANKS: Region = {
  name: 'the Outer Banks, NC',
  state: 'NC',
  cities: ['Kill Devil Hills, NC', 'Nags Head, NC', 'Kitty Hawk, NC'],
};
const LAKE_TAHOE: Region = {
  name: 'Lake Tahoe (California and Nevada)',
  state: 'CA',
  cities: ['South Lake Tahoe, CA', 'Truckee, CA', 'Incline Village, NV'],
};
const WINE_COUNTRY: Region = {
  name: 'Wine Country, CA: Napa and Sonoma counties',
  state: 'CA',
  cities: ['Napa, CA', 'Santa Rosa, CA', 'Sonoma, CA'],
};
const HILL_COUNTRY: Region = {
  name: 'the Texas Hill Country, TX',
  state: 'TX',
  cities: ['New Braunfels, TX', 'Kerrville, TX', 'Fredericksburg, TX'],
};

const OAHU: Region = {
  name: 'the island of Oahu, HI',
  state: 'HI',
  cities: ['Honolulu, HI', 'Pearl City, HI', 'Kailua, HI'],
};
const MAUI: Region = {
  name: 'the island of Maui, HI',
  state: 'HI',
  cities: ['Kahului, HI', 'Kihei, HI', 'Lahaina, HI'],
};
const KAUAI: Region = {
  name: 'the island of Kauai, HI',
  state: 'HI',
  cities: ['Lihue, HI', 'Kapaa, HI'],
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
  // "NorCal" was read as Normal, IL (one letter away); "Jersey Shore" as the borough of Jersey Shore, PA.
  socal: SOUTHERN_CALIFORNIA,
  southerncalifornia: SOUTHERN_CALIFORNIA,
  norcal: NORTHERN_CALIFORNIA,
  northerncalifornia: NORTHERN_CALIFORNIA,
  jerseyshore: JERSEY_SHORE,
  thejerseyshore: JERSEY_SHORE,
  southjersey: {
    name: 'South Jersey, NJ',
    state: 'NJ',
    cities: ['Camden, NJ', 'Cherry Hill, NJ', 'Vineland, NJ'],
  },
  northjersey: {
    name: 'North Jersey, NJ',
    state: 'NJ',
    cities: ['Newark, NJ', 'Jersey City, NJ', 'Paterson, NJ'],
  },
  tristate: TRI_STATE,
  tristatearea: TRI_STATE,
  thetristatearea: TRI_STATE,
  // "Hamptons" was answered from Hampton, VA (the plural read as a slip); the rest were refused as unknown names.
  hamptons: HAMPTONS,
  thehamptons: HAMPTONS,
  poconos: POCONOS,
  thepoconos: POCONOS,
  pocono: POCONOS,
  poconomountains: POCONOS,
  catskills: CATSKILLS,
  thecatskills: CATSKILLS,
  adirondacks: ADIRONDACKS,
  theadirondacks: ADIRONDACKS,
  ozarks: OZARKS,
  theozarks: OZARKS,
  floridakeys: FLORIDA_KEYS,
  thefloridakeys: FLORIDA_KEYS,
  thekeys: FLORIDA_KEYS,
  outerbanks: OUTER_BANKS,
  theouterbanks: OUTER_BANKS,
  obx: OUTER_BANKS,
  laketahoe: LAKE_TAHOE,
  tahoe: LAKE_TAHOE,
  winecountry: WINE_COUNTRY,
  napavalley: WINE_COUNTRY,
  hillcountry: HILL_COUNTRY,
  thehillcountry: HILL_COUNTRY,
  texashillcountry: HILL_COUNTRY,
  // Hawaii's islands: "Maui" was offered as Maud, OK; the others were refused as unknown names.
  oahu: OAHU,
  maui: MAUI,
  kauai: KAUAI,
  kona: {
    name: 'the Kona coast of the island of Hawaii, HI',
    state: 'HI',
    cities: ['Kailua-Kona, HI', 'Holualoa, HI'],
  },
  marthasvineyard: {
    name: "Martha's Vineyard, MA",
    state: 'MA',
    cities: ['Edgartown, MA', 'Oak Bluffs, MA', 'Vineyard Haven, MA'],
  },
  hamptonroads: {
    name: 'Hampton Roads, VA',
    state: 'VA',
    cities: ['Virginia Beach, VA', 'Norfolk, VA', 'Newport News, VA'],
  },
});

/**
 * Words for a part of some city or state, or a region of several states, which the gazetteer also holds as small places
 * ("Midtown" is Midtown, TN; "Midwest" Midwest City, OK; "NoVA" Nova, OH): normalised word -> what it names, for the
 * refusal ("part of a city", ...). A person saying one means the part near them, never the small place.
 */
const AREA_WORDS: Readonly<Record<string, string>> = nullProto({
  midtown: 'a part of a city',
  uptown: 'a part of a city',
  downtown: 'a part of a city',
  westside: 'a part of a city',
  eastside: 'a part of a city',
  northside: 'a part of a city',
  southside: 'a part of a city',
  panhandle: 'a part of a state (Florida, Texas, Oklahoma and others have one)',
  thepanhandle: 'a part of a state (Florida, Texas, Oklahoma and others have one)',
  southbay: 'a part of a metro area (the South Bay of Los Angeles or of San Francisco)',
  eastbay: 'a part of the San Francisco Bay Area',
  northbay: 'a part of the San Francisco Bay Area',
  bigisland: 'the island of Hawaii (HI)',
  thebigisland: 'the island of Hawaii (HI)',
  midwest: 'a region of several states (the Midwest)',
  themidwest: 'a region of several states (the Midwest)',
  newengland: 'a region of six states (New England)',
  pacificnorthwest: 'a region of several states (the Pacific Northwest)',
  pnw: 'a region of several states (the Pacific Northwest)',
  eastcoast: 'a region of several states (the East Coast)',
  westcoast: 'a region of several states (the West Coast)',
  nova: 'a part of Virginia (Northern Virginia)',
  northernvirginia: 'a part of Virginia (Northern Virginia)',
  centralvalley: 'a part of California (the Central Valley)',
  chicagoland: 'the Chicago metro area, IL',
  capecod: 'a part of Massachusetts (Cape Cod)',
});

/** What an area word names ("a part of a city"), or null when `key` (normalised) is none. */
export function areaWordOf(key: string): string | null {
  return AREA_WORDS[key] ?? null;
}

/** The region a name stands for (any spelling normaliseCityName folds to the same key), or null. */
export function regionOf(key: string): Region | null {
  return REGIONS[key] ?? null;
}
