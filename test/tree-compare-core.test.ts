/**
 * The index's block cores: recomputed here from the published blocks alone (each office's unit, a unit homed in a block
 * when all its offices are in it), and checked by `npm run audit`'s rebuild of the cell tree (compareTree) like every
 * other value, which compares an index written before cores existed (no `block_core`) without them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cellToLatLng } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { decodeCoords, decodeSteps } from '../shim/format/block-coords.ts';
import { CellBlock, type CellIndexT } from '../shim/format/cell-format.ts';
import { reachOf } from '../shim/format/group-binary.ts';
import { decodeStored } from '../shim/format/site-json.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { compareTree, scanOffices } from '../generator/site/scan.ts';
import { buildCells } from '../generator/write/cells.ts';
import { sealCellTree } from '../generator/write/cell-hashes.ts';
import { openSite } from '../generator/site/site.ts';
import { keys } from '../shim/format/site-format.ts';

const SITE = process.env.TEST_SITE_DIR as string;

describe('the audit rebuild of the cell index and its block cores', () => {
  it('is clean on the sample, clean without cores, and names the index when a core is wrong', async () => {
    const site = await openSite({ kind: 'folder', dir: SITE });
    const scan = await scanOffices(site);
    expect(scan.problems).toEqual([]);
    expect(compareTree(scan, site.version)).toEqual([]);
    const { block_core: cores, ...coreless } = scan.index;
    expect(Object.keys(cores ?? {}).length).toBe(Object.keys(scan.index.groups).length);
    expect(compareTree({ ...scan, index: coreless }, site.version)).toEqual([]);
    const wrong = Object.fromEntries(Object.entries(cores ?? {}).map(([g, list]) => [g, list.map((c) => c + 1)]));
    expect(compareTree({ ...scan, index: { ...scan.index, block_core: wrong } }, site.version)).toEqual([
      `${keys.cellIndex(site.version)}: differs from the tree the records give`,
    ]);
  }, 60_000);

  it('rebuilds an index without fine_order in listing order, and names the blocks when the stated order is not theirs', async () => {
    const site = await openSite({ kind: 'folder', dir: SITE });
    const scan = await scanOffices(site);
    expect(scan.index.fine_order).toBe('h3-15');
    // The tree a release before fine_order wrote from the same offices: each fine cell's offices by listing number.
    const old = buildCells(scan.offices, { fineOrder: 'listing' });
    sealCellTree(old);
    expect(old.index.fine_order).toBeUndefined();
    const written = { ...scan, index: old.index, groups: old.groups, shared: old.shared, blocks: old.blocks };
    expect(compareTree(written, site.version)).toEqual([]);
    // The same objects said to be in h3-15 order: the blocks whose fine cells hold offices in another order differ.
    const claimed = compareTree({ ...written, index: { ...old.index, fine_order: 'h3-15' } }, site.version);
    expect(claimed).toContain(`${keys.cellIndex(site.version)}: differs from the tree the records give`);
    expect(claimed.filter((p) => p.includes('/cells/blocks/')).length).toBeGreaterThan(0);
    // An order this release does not know is said so, not rebuilt in another order and reported as tampering.
    expect(compareTree({ ...scan, index: { ...scan.index, fine_order: 'hilbert' } }, site.version)).toEqual([
      `${keys.cellIndex(site.version)}: fine_order "hilbert" is not an order this release rebuilds (h3-15, or absent for listing order)`,
    ]);
  }, 60_000);

  it('are, block by block, the distance within which 25 of its homed units (all, if fewer) have an office', async () => {
    const site = await openSite({ kind: 'folder', dir: SITE });
    const index = (await scanOffices(site)).index as CellIndexT;
    const root = join(SITE, keys.root(site.version));
    // Every office's unit and place, by block; a unit's blocks.
    const blocks = Object.values(index.blocks).flat();
    const offices = new Map<string, { unit: number; lat: number; lng: number }[]>();
    const blocksOfUnit = new Map<number, Set<string>>();
    for (const [cell] of blocks) {
      const rel = `cells/blocks/${cell}.pb`;
      const block = CellBlock.parse(decodeStored(readFileSync(join(root, rel)), rel));
      const coords = decodeCoords(block, block.listing.length);
      const units = decodeSteps(block.dunit);
      if (typeof coords === 'string' || typeof units === 'string') throw new Error(`${rel}: ${String(coords)}`);
      const list = [...units].map((unit, p) => ({ unit, lat: coords.lat[p] ?? 0, lng: coords.lng[p] ?? 0 }));
      offices.set(cell, list);
      for (const o of list) blocksOfUnit.set(o.unit, (blocksOfUnit.get(o.unit) ?? new Set()).add(cell));
    }
    let checked = 0;
    for (const [group, list] of Object.entries(index.blocks)) {
      list.forEach(([cell, , units], k) => {
        const [cLat, cLng] = cellToLatLng(cell);
        const nearest = new Map<number, number>();
        for (const o of offices.get(cell) ?? []) {
          if (blocksOfUnit.get(o.unit)?.size !== 1) continue;
          const d = haversineMiles(cLat, cLng, o.lat, o.lng);
          nearest.set(o.unit, Math.min(nearest.get(o.unit) ?? Infinity, d));
        }
        expect(nearest.size, `${cell} homes its units`).toBe(units);
        const sorted = [...nearest.values()].sort((a, b) => a - b);
        const kth = sorted[Math.min(sorted.length, 25) - 1] ?? 0;
        const core = reachOf(index.block_core?.[group]?.[k] ?? -1);
        // Rounded up to 0.0001 mile and 0.0001 more, as a reach is: never below the distance, at most 0.0002 above.
        expect(core, cell).toBeGreaterThanOrEqual(kth);
        expect(core - kth, cell).toBeLessThanOrEqual(0.0002 + 1e-9);
        checked++;
      });
    }
    expect(checked).toBe(blocks.length);
  }, 60_000);
});
