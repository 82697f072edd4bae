/**
 * `node --import tsx bench/cold/pack-sim.ts --site DIR [--site DIR ...] [--gap BYTES ...] [--join BYTES ...] [--within
 * BYTES ...]`: the cold query sets of section 3 replayed on each site (a copy with another tree from
 * bench/cold/tree-variant.ts, say), their cell reads then counted as byte ranges of one packed object per group
 * (packed-ranges.ts); with --join, also as the shim's planner asks them (block-packs.ts packRuns) with each join budget,
 * the record chunks as objects and in the packs; with --within, at the fewest GETs any join of their ranges reaches
 * within that many bytes a query (a bound on every join rule). Prints a Markdown table and one JSON line per site on
 * stdout; `npm run bench -- --only trees` measures the same for section 11.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { CellIndex } from '../../shim/format/cell-format.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { coldReadsBySet } from './cold.ts';
import { joinedFigures, leastFigures, PACK_GAPS, packedFigures, readAs } from './packed-ranges.ts';
import { PACK_JOIN_BUDGET_BYTES } from '../../shim/search/block-packs.ts';
import { fmtBytes, progress, table } from '../lib/stats.ts';
import { RADII } from '../lib/points.ts';

const { values } = cliOrExit({
  name: 'pack-sim',
  usage:
    'node bench/cold/pack-sim.ts --site <dir> [--site <dir> ...] [--gap <bytes> ...] [--join <bytes> ...] [--within <bytes> ...] [--online]',
  description:
    'The cold query sets replayed on each site, their cell reads then counted as byte ranges of one packed object per group, ranges of one round merged across gaps up to each --gap.',
  options: {
    site: { type: 'string', arg: 'dir', multiple: true, required: true, description: 'a generated site' },
    gap: {
      type: 'integer',
      min: 0,
      multiple: true,
      description: `bytes two ranges of one round may lie apart and still be one GET (default ${PACK_GAPS.join(', ')})`,
    },
    join: {
      type: 'integer',
      min: 0,
      multiple: true,
      description:
        'bytes of gaps a round may join as the shim plans (16 KiB gaps merged, then the smallest gaps left joined within this budget); rows with the record chunks as objects and in the packs',
    },
    within: {
      type: 'integer',
      min: 1,
      multiple: true,
      description:
        'bytes a query may read: rows with the fewest GETs any join of ranges reaches within them (a bound on every join rule), the record chunks as objects and in the packs',
    },
    online: {
      type: 'boolean',
      description:
        'rows with a query-aware join on top of each --join budget (the shipped one without --join): a round joins its smallest gaps while the query would exceed 20 GETs with a reserve for its later rounds, within 1 MiB; the record chunks as objects and in the packs',
    },
    coded: {
      type: 'boolean',
      description: 'the cell tree objects at their estimated binary size too (records and the rest as stored)',
    },
  },
});

const rows: string[][] = [];
for (const dir of values.site) {
  const site = resolve(dir);
  const v = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
  const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
  const tree = `${index.leaf_max} / ${index.block_max} / ${index.record_chunk} / ${index.shared_res}`;
  progress(`pack-sim: the cold query sets on ${v} (${dir}, tree ${tree})`);
  const perQuery = (await coldReadsBySet(site, RADII, undefined, { wholeObjects: true })).flatMap((s) => s.perQuery);
  const gaps = values.gap !== undefined && values.gap.length > 0 ? values.gap : PACK_GAPS;
  const figures = [
    ...[false, ...(values.coded === true ? [true] : [])].flatMap((coded) =>
      packedFigures(site, v, perQuery, gaps, coded),
    ),
    ...[false, true].flatMap((records) => joinedFigures(site, v, perQuery, values.join ?? [], records)),
    ...(values.within ?? []).flatMap((bytes) =>
      [false, true].map((records) => leastFigures(site, v, perQuery, bytes, records)),
    ),
    ...(values.online === true
      ? [false, true].flatMap((records) =>
          joinedFigures(site, v, perQuery, values.join?.length ? values.join : [PACK_JOIN_BUDGET_BYTES], records, true),
        )
      : []),
  ];
  for (const f of figures)
    rows.push([
      dir,
      tree,
      `${readAs(f)}${f.coded ? ', tree coded' : ''}`,
      `${f.gets.median} / ${f.gets.max} (${f.gets.query})`,
      `${fmtBytes(f.bytes.median)} / ${fmtBytes(f.bytes.max)} (${f.bytes.query})`,
      `${f.overGets} / ${f.overBytes} of ${f.queries}`,
    ]);
  process.stdout.write(`${JSON.stringify({ site: dir, version: v, tree, figures })}\n`);
}
process.stdout.write(
  `${table(['Site', 'Tree (leaf / block / chunk / pages)', 'Cell objects read as', 'GETs median / max (most)', 'Bytes median / max (heaviest)', 'Queries over 20 GETs / over 1 MiB'], rows)}\n`,
);
