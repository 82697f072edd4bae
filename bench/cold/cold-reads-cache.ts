/** The cold query sets' reads of a site (cold.ts coldReadsBySet), kept in a JSON file so a what-if can be rerun without the replay. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { coldReadsBySet, type ColdQueryReads } from './cold.ts';
import { RADII } from '../lib/points.ts';

/** Each query's cold reads on `site`, from `cache` when it exists, else replayed (and written there when `cache` is given). */
export async function cachedColdReads(site: string, cache?: string): Promise<ColdQueryReads[]> {
  if (cache !== undefined && existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as ColdQueryReads[];
  const perQuery = (await coldReadsBySet(site, RADII, undefined, { wholeObjects: true })).flatMap((s) => s.perQuery);
  if (cache !== undefined) writeFileSync(cache, JSON.stringify(perQuery));
  return perQuery;
}
