/**
 * `npm run audit`'s rebuild of the cell tree (compareTree) checks the index's block cores like every other value, and
 * compares an index written before cores existed (no `block_core`) without them rather than call it damaged.
 */
import { describe, expect, it } from 'vitest';
import { compareTree, scanOffices } from '../generator/site/scan.ts';
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
});
