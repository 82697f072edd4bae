/**
 * Where the published place data (the gazetteer that resolves ZIPs and "City, ST") comes from and under which licence.
 * GeoNames data is CC BY 4.0, which asks for credit, the licence and a note that it was changed wherever it is shared:
 * every page's footer, /terms, /v1/coverage `attribution` and the OpenAPI `info.description` all say it from here.
 */

/** One source of the published place data. */
export interface DataSourceT {
  name: string;
  /** What the service uses it for. */
  used_for: string;
  /** The licence of the data, e.g. "CC BY 4.0" or "Public domain". */
  licence: string;
  /** The licence text, when it has one. */
  licence_url: string | null;
  /** The publisher's site. */
  url: string;
}

/** The licence GeoNames data is published under. */
export const CC_BY_4_URL = 'https://creativecommons.org/licenses/by/4.0/';
/** GeoNames' site. */
export const GEONAMES_URL = 'https://www.geonames.org/';
/** The Census Bureau's Gazetteer Files. */
export const CENSUS_GAZETTEER_URL =
  'https://www.census.gov/geographies/reference-files/time-series/geo/gazetteer-files.html';

/** The Census Bureau's cartographic boundary files. */
export const CENSUS_BOUNDARY_URL =
  'https://www.census.gov/geographies/mapping-files/time-series/geo/carto-boundary-file.html';
/** Natural Earth's site. */
export const NATURAL_EARTH_URL = 'https://www.naturalearthdata.com/';

/** The sources of the place data, in the order the gazetteer prefers them. */
export const DATA_SOURCES: readonly DataSourceT[] = [
  {
    name: 'U.S. Census Bureau, 2021 Gazetteer Files (ZCTA internal points)',
    used_for: 'ZIP code locations',
    licence: 'Public domain',
    licence_url: null,
    url: CENSUS_GAZETTEER_URL,
  },
  {
    name: 'GeoNames postal codes (US)',
    used_for: 'ZIP codes the Census files lack, and their place names',
    licence: 'CC BY 4.0',
    licence_url: CC_BY_4_URL,
    url: GEONAMES_URL,
  },
  {
    name: 'GeoNames cities1000',
    used_for: 'City names and locations for "City, ST" searches, and the larger places abroad a name may mean',
    licence: 'CC BY 4.0',
    licence_url: CC_BY_4_URL,
    url: GEONAMES_URL,
  },
  {
    name: 'U.S. Census Bureau, 2017 cartographic boundary files (states), as the us-atlas package',
    used_for: 'Whether a point is in the 50 states, DC or Puerto Rico, and in which state',
    licence: 'Public domain',
    licence_url: null,
    url: CENSUS_BOUNDARY_URL,
  },
  {
    name: 'Natural Earth 1:50m admin 0 countries, as the world-atlas package',
    used_for: 'The country named when a point is outside the US',
    licence: 'Public domain',
    licence_url: null,
    url: NATURAL_EARTH_URL,
  },
];

/** The attribution in one sentence (plain text). */
export const ATTRIBUTION_NOTICE =
  `Contains postal code and place data from GeoNames (${GEONAMES_URL}), licensed under CC BY 4.0 (${CC_BY_4_URL}), ` +
  'ZIP code points from the U.S. Census Bureau 2021 Gazetteer Files and state boundaries from its 2017 cartographic ' +
  'boundary files (public domain), and country boundaries from Natural Earth (public domain). ' +
  'The data was changed: merged, deduplicated, rounded to 5 decimals and re-keyed.';

/** The attribution as /v1/coverage carries it. */
export interface AttributionT {
  notice: string;
  sources: DataSourceT[];
}

/** A fresh copy of the attribution, for a document that is serialised. */
export function attribution(): AttributionT {
  return { notice: ATTRIBUTION_NOTICE, sources: DATA_SOURCES.map((s) => ({ ...s })) };
}

/**
 * The footer line of every page (HTML). It names the licence and links to /terms#data, which links the sources and the
 * licence text: the pages themselves reference no other host.
 */
export const ATTRIBUTION_FOOTER_HTML =
  'Place data: contains data from GeoNames, licensed under CC BY 4.0, and from the U.S. Census Bureau (public domain), ' +
  'changed (merged, deduplicated, rounded). <a href="/terms#data">Sources and licences</a>.';
