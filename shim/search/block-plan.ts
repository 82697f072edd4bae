/**
 * The blocks a search will read, planned from the cell index alone (its list of each group's blocks, with their reach and
 * homed units), so a cold search reads them in the same round trip as the group trees instead of after them. A superset,
 * never a guess: the search reads only blocks of leaves crossing the circle's edge (whose blocks cross it too), of
 * inside tops below block level (in blocks crossing it), and of the inside leaves its nearest-first walk visits; that
 * walk stops once `limit` firms are kept, and the units homed in blocks wholly inside are distinct firms each within its
 * block's greatest distance, so no leaf past the distance where those blocks hold `limit` units is visited. A
 * block's core (the index's `block_core`, when it has one) tightens that distance: min(units, LIMIT.max) of its homed
 * units each have an office within the core of the block cell's centre, so within the centre's distance plus the core,
 * and in an inside leaf when the block is wholly inside.
 */
import { cellToLatLng } from 'h3-js';
import { LIMIT } from '../contract/constants.ts';
import type { CellIndexT } from '../format/cell-format.ts';
import { reachOf } from '../format/group-binary.ts';
import { chordHav, chordMiles, unitVector } from './search-scratch.ts';

/** The index's blocks as typed arrays (H3 centre unit vectors, reach, homed units), built once per parsed index. */
interface Blocks {
  /** Each group's blocks: positions start to end - 1 of the arrays below. */
  range: Map<string, [number, number]>;
  cell: string[];
  xyz: Float64Array;
  reach: Float64Array;
  units: Int32Array;
  /** Each block's core (miles), or its reach where the index has none. */
  core: Float64Array;
  /** How many homed units lie within the core: min(units, LIMIT.max), or all of them where the index has no core. */
  coreUnits: Int32Array;
}

const blocksOfIndex = new WeakMap<CellIndexT, Blocks>();

function blocksOf(index: CellIndexT): Blocks {
  let b = blocksOfIndex.get(index);
  if (b !== undefined) return b;
  const range = new Map<string, [number, number]>();
  let at = 0;
  for (const [g, list] of Object.entries(index.blocks)) {
    range.set(g, [at, at + list.length]);
    at += list.length;
  }
  const entries = Object.values(index.blocks).flat();
  const cores = index.block_core;
  const core = Object.entries(index.blocks).flatMap(([g, list]) =>
    list.map((e, k) => {
      const c = cores?.[g]?.[k];
      return c === undefined ? e[1] : reachOf(c);
    }),
  );
  b = {
    range,
    cell: entries.map((e) => e[0]),
    xyz: new Float64Array(entries.length * 3),
    reach: Float64Array.from(entries, (e) => e[1]),
    units: Int32Array.from(entries, (e) => e[2]),
    core: Float64Array.from(core),
    coreUnits: Int32Array.from(entries, (e) => (cores === undefined ? e[2] : Math.min(e[2], LIMIT.max))),
  };
  for (let i = 0; i < entries.length; i++) {
    const [lat, lng] = cellToLatLng(b.cell[i] ?? '');
    unitVector(lat, lng, b.xyz, i * 3);
  }
  blocksOfIndex.set(index, b);
  return b;
}

/**
 * The distance within which `holds` (each [distance, units newly within it]) put `limit` distinct units; Infinity when
 * they hold fewer.
 */
function boundOf(holds: [number, number][], limit: number): number {
  let held = 0;
  for (const [far, units] of holds.sort((x, y) => x[0] - y[0])) {
    held += units;
    if (held >= limit) return far;
  }
  return Infinity;
}

/**
 * The cells of the blocks of `groups` that a search of `radius` miles around unit vector `p` for `limit` firms may
 * read: every block crossing the circle's edge, and the blocks wholly inside whose least possible distance is within
 * `bound`, the distance by which blocks wholly inside (or their cores) hold `limit` homed units (Infinity when they
 * hold fewer), past which the nearest-firm walk visits nothing.
 */
export function plannedBlocks(
  index: CellIndexT,
  groups: readonly string[],
  p: Float64Array,
  radius: number,
  limit: number,
): { cells: string[]; bound: number } {
  const b = blocksOf(index);
  const out: string[] = [];
  // Blocks wholly inside: [least distance, position].
  const inside: [number, number][] = [];
  // Of blocks wholly inside, the distances within which their homed units lie: those of the core, then the rest of
  // them (the core is no farther than the reach; were it, the rest would only count too few). Only those blocks: the
  // walk visits inside leaves alone, so only their firms stop it.
  const holds: [number, number][] = [];
  for (const g of groups) {
    const [start, end] = b.range.get(g) ?? [0, 0];
    for (let i = start; i < end; i++) {
      const d = chordMiles(chordHav(p, b.xyz, i));
      const reach = b.reach[i] ?? 0;
      if (d - reach > radius) continue;
      if (d + reach > radius) {
        out.push(b.cell[i] ?? '');
        continue;
      }
      inside.push([Math.max(0, d - reach), i]);
      const coreUnits = b.coreUnits[i] ?? 0;
      holds.push([d + (b.core[i] ?? reach), coreUnits], [d + reach, (b.units[i] ?? 0) - coreUnits]);
    }
  }
  const bound = boundOf(holds, limit);
  // The margin covers rounding between these sums and the walk's kept distances, as in the leaf plan (cell-search.ts).
  for (const [least, i] of inside) if (least <= bound + 1e-9) out.push(b.cell[i] ?? '');
  return { cells: out, bound };
}
