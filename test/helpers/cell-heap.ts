/**
 * Run with `node --expose-gc`: what the parsed binary cell objects of one kind (block, group tree, shared page) hold in
 * memory per stored byte, to set site-reader.ts HELD_BYTES_PER_BINARY_BYTE. Each object is read and parsed as the site
 * reader does (parseStored with its schema), then given the typed-array search columns a search builds from it
 * (cell-search.ts columns and treeOf, shared-lists.ts sharedLists). Memory is heap plus array buffers after two full
 * collections, after a warm-up pass over every object so compiled code is in the baseline.
 * - perObject: each object measured alone (the others dropped), as quantiles over the objects of held bytes per stored
 *   byte: `parsed` (the object), `full` (with its search columns) and `factor` (full less what heldBytes charges the
 *   columns per office or row apart: the factor the stored bytes must carry), the objects' stored sizes, and `fit`, a
 *   least-squares line of an object's held bytes (as for `factor`) on its stored bytes: per object, and per byte;
 * - together: the same ratios for all the objects retained at once in one array (total bytes over total stored bytes);
 * - batches: the same over five batches of the objects in a fixed shuffled order, each retained together, as quantiles;
 *   the median batch's `factor` is what HELD_BYTES_PER_BINARY_BYTE takes (bytes held over bytes stored, as the cache's
 *   budget adds them up, where a median over objects would weigh the many small ones as much as the large);
 * - noise: bytes measured across an empty step (median and largest absolute), the floor of a per-object delta.
 * Usage: node --expose-gc test/helpers/cell-heap.ts <site> <block|group|shared> [max objects]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import {
  CellBlock,
  CellGroup,
  CellShared,
  type CellBlockT,
  type CellGroupT,
  type CellSharedT,
} from '../../shim/format/cell-format.ts';
import { parseStored } from '../../shim/format/site-json.ts';
import type { BinaryCellKind } from '../../shim/format/paths.ts';
import { columns, treeOf } from '../../shim/search/cell-search.ts';
import { sharedLists } from '../../shim/search/shared-lists.ts';
import { heldBytes } from '../../shim/search/site-reader.ts';
import { heldAfterGc } from './heap-held.ts';

const [site = '', kindArg = 'block', maxArg = '100000'] = process.argv.slice(2);
const kind = kindArg as BinaryCellKind;
const held = heldAfterGc;

const DIRS: Record<BinaryCellKind, { dir: string; schema: ZodType }> = {
  block: { dir: 'cells/blocks', schema: CellBlock },
  group: { dir: 'cells/groups', schema: CellGroup },
  shared: { dir: 'cells/shared', schema: CellShared },
};
const { dir, schema } = DIRS[kind];
const version = (JSON.parse(readFileSync(join(site, 'current.json'), 'utf8')) as { version: string }).version;
const root = `v/${version}/`;
const sharedRes = (JSON.parse(readFileSync(join(site, root, 'cells/index.json'), 'utf8')) as { shared_res: number })
  .shared_res;
const keys = readdirSync(join(site, root, dir))
  .filter((name) => name.endsWith('.pb'))
  .sort()
  .slice(0, Number(maxArg))
  .map((name) => `${root}${dir}/${name}`);

/** One object read and parsed as the site reader does, with its stored size. */
function load(key: string): { key: string; value: unknown; stored: number } {
  const bytes = readFileSync(join(site, key));
  return { key, value: parseStored(bytes, key, schema), stored: bytes.byteLength };
}

/** The search columns of a parsed object, built as a search builds them (kept by WeakMaps on the object). */
function build(o: { key: string; value: unknown }): void {
  if (kind === 'block') columns(o.value as CellBlockT, o.key);
  else if (kind === 'group') treeOf(o.value as CellGroupT, sharedRes);
  else sharedLists((o.value as CellSharedT).shared);
}

/** What heldBytes charges an object's search columns apart from its stored bytes (per office or row). */
const columnCharge = (o: { key: string; value: unknown }): number => heldBytes(o.key, 0, o.value);

const quantiles = (xs: number[]): { p10: number; median: number; p90: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => Number((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN).toFixed(2));
  return { p10: at(0.1), median: at(0.5), p90: at(0.9) };
};

// Warm-up: every object parsed and given its columns once, then dropped.
for (const key of keys) build(load(key));

const noise: number[] = [];
for (let i = 0; i < 20; i++) {
  const before = held();
  noise.push(held() - before);
}

/** One object measured alone, in a function of its own so that nothing of it outlives the call. */
function measure(key: string): { stored: number; held: number; parsed: number; full: number; factor: number } {
  const before = held();
  const o = load(key);
  const afterParse = held();
  build(o);
  const afterBuild = held();
  return {
    stored: o.stored,
    held: afterBuild - before - columnCharge(o),
    parsed: (afterParse - before) / o.stored,
    full: (afterBuild - before) / o.stored,
    factor: (afterBuild - before - columnCharge(o)) / o.stored,
  };
}
const each = keys.map(measure);

/** Least squares of `held` on `stored` over the objects: bytes held per object apart from its size, and per stored byte. */
function fit(ms: { stored: number; held: number }[]): { perObject: number; perByte: number } {
  const n = ms.length;
  const mx = ms.reduce((s, m) => s + m.stored, 0) / n;
  const my = ms.reduce((s, m) => s + m.held, 0) / n;
  const sxy = ms.reduce((s, m) => s + (m.stored - mx) * (m.held - my), 0);
  const sxx = ms.reduce((s, m) => s + (m.stored - mx) ** 2, 0);
  const perByte = sxx === 0 ? 0 : sxy / sxx;
  return { perObject: Math.round(my - perByte * mx), perByte: Number(perByte.toFixed(2)) };
}

/** Held bytes per stored byte of `group` retained together in one array: parsed, with columns, less the column charge. */
function together(group: string[]): { parsed: number; full: number; factor: number } {
  const before = held();
  const all = group.map(load);
  const afterParse = held();
  for (const o of all) build(o);
  const afterBuild = held();
  const stored = all.reduce((sum, o) => sum + o.stored, 0);
  const charged = all.reduce((sum, o) => sum + columnCharge(o), 0);
  const ratio = (bytes: number): number => Number((bytes / stored).toFixed(2));
  return {
    parsed: ratio(afterParse - before),
    full: ratio(afterBuild - before),
    factor: ratio(afterBuild - before - charged),
  };
}
const whole = together(keys);
// Five batches of the objects in a fixed shuffled order, each retained together: the median batch, and the spread.
const shuffled = keys
  .map((key, i) => ({ key, at: (i * 2654435761) % 4294967296 }))
  .sort((a, b) => a.at - b.at)
  .map((k) => k.key);
const BATCHES = Math.min(5, keys.length);
const batches = Array.from({ length: BATCHES }, (_, b) => together(shuffled.filter((_, i) => i % BATCHES === b)));
const stored = keys.reduce((sum, key) => sum + readFileSync(join(site, key)).byteLength, 0);

process.stdout.write(
  `${JSON.stringify({
    node: process.version,
    kind,
    objects: keys.length,
    storedBytes: stored,
    perObject: {
      parsed: quantiles(each.map((m) => m.parsed)),
      full: quantiles(each.map((m) => m.full)),
      factor: quantiles(each.map((m) => m.factor)),
      storedBytes: quantiles(each.map((m) => m.stored)),
      fit: fit(each),
    },
    together: whole,
    batches: {
      parsed: quantiles(batches.map((m) => m.parsed)),
      full: quantiles(batches.map((m) => m.full)),
      factor: quantiles(batches.map((m) => m.factor)),
    },
    noise: { median: quantiles(noise.map(Math.abs)).median, max: Math.max(...noise.map(Math.abs)) },
  })}\n`,
);
