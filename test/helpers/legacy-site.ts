/**
 * Turn a generated (schema 2) version in a site folder into the schema-1 version the same offices gave before the cell
 * tree: meta.json with shard_resolutions, shards/index.json and one shards/<res>/<cell>.json per non-empty H3 cell of
 * each resolution, no cells/, and a manifest of what is then there. For tests of a live version older than the generator.
 */
import { readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { latLngToCell } from 'h3-js';
import { scanOffices } from '../../generator/site/scan.ts';
import { openSite } from '../../generator/site/site.ts';
import { serialise, sha256Hex } from '../../generator/write/json.ts';
import { keys, type StoredOfficeT } from '../../shim/core/site-format.ts';

/** The resolutions the schema-1 generator sharded at (coarsest first). */
export const LEGACY_RESOLUTIONS = [4, 6] as const;

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** Rewrite version `version` of the folder site `dir` as schema 1, in place; returns its offices as the shards hold them. */
export async function downgradeToSchema1(dir: string, version: string): Promise<StoredOfficeT[]> {
  const site = await openSite({ kind: 'folder', dir }, version);
  const { offices } = await scanOffices(site);
  const root = join(dir, keys.root(version));
  const cells: Record<string, Record<string, [number, number]>> = {};
  for (const res of LEGACY_RESOLUTIONS) {
    const byCell = new Map<string, StoredOfficeT[]>();
    for (const o of offices) {
      const cell = latLngToCell(o.lat, o.lng, res);
      const list = byCell.get(cell) ?? [];
      list.push(o);
      byCell.set(cell, list);
    }
    const index: Record<string, [number, number]> = {};
    for (const [cell, list] of [...byCell].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const bytes = serialise({ schema_version: 1, res, cell, offices: list.sort((a, b) => (a.listing_id < b.listing_id ? -1 : 1)) });
      await mkdir(join(root, 'shards', String(res)), { recursive: true });
      await writeFile(join(root, 'shards', String(res), `${cell}.json`), bytes);
      index[cell] = [list.length, bytes.length];
    }
    cells[String(res)] = index;
  }
  await writeFile(join(root, 'shards', 'index.json'), serialise({ schema_version: 1, resolutions: [...LEGACY_RESOLUTIONS], max_shards_per_query: 7, cells }));
  await rm(join(root, 'cells'), { recursive: true, force: true });
  const { schema_version: _s, layers: _l, ...rest } = site.meta;
  await writeFile(join(root, 'meta.json'), serialise({ schema_version: 1, ...rest, shard_resolutions: [...LEGACY_RESOLUTIONS], max_shards_per_query: 7 }));
  const objects: Record<string, { sha256: string; bytes: number }> = {};
  for (const rel of await filesUnder(root)) {
    if (rel === 'manifest.json') continue;
    const bytes = await readFile(join(root, rel));
    objects[keys.root(version) + rel] = { sha256: sha256Hex(bytes), bytes: bytes.length };
  }
  await writeFile(join(root, 'manifest.json'), serialise({ schema_version: 1, version, objects }));
  return offices;
}

/** Every file of the folder site `dir` (pointer and versions), by store key. */
export async function siteFiles(dir: string): Promise<string[]> {
  return filesUnder(dir);
}
