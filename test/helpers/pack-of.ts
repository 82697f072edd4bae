/** Where a block of a generated version is packed (cells/packs/<group>.bin), for tests that damage the block itself. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CellIndex } from '../../shim/format/cell-format.ts';
import { paths } from '../../shim/format/paths.ts';

/**
 * The path (relative to the version root `root`) of the pack holding block `cell`, or null when its index packs none. A
 * test that damages the block object removes it too, since a cold search reads the block from the pack.
 */
export function packOfBlock(root: string, cell: string): string | null {
  const index = CellIndex.parse(JSON.parse(readFileSync(join(root, paths.cellIndex()), 'utf8')));
  const group = Object.entries(index.blocks).find(([, list]) => list.some(([c]) => c === cell))?.[0];
  return group === undefined || index.block_bytes?.[group] === undefined ? null : paths.cellPack(group);
}
