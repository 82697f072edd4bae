/** The cell-tree parameter section of BENCHMARKS.md (see tree-sweep.ts). */
import type { ColdReads } from './cold.ts';
import { fmtBytes } from '../lib/stats.ts';
import type { TreeSweepReport } from './tree-sweep.ts';
import { FIT_GETS, INDEX_BYTES_PER_BLOCK, readAs, type PackedFigures } from './packed-ranges.ts';

export const TREES_HEADING = '## 11. Cell-tree parameters (cold path at scale)';

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');

function worstOf(sets: readonly ColdReads[]): ColdReads['worst'] | null {
  let worst: ColdReads['worst'] | null = null;
  for (const s of sets) if (worst === null || s.worst.bytes > worst.bytes) worst = s.worst;
  return worst;
}

/** Section 11: objects and bytes of the cold query sets under each tree configuration. */
export function treeSweepSection(r: TreeSweepReport | undefined): string {
  const out = [TREES_HEADING, ''];
  if (!r) return [...out, 'Skipped.'].join('\n');
  const labels = r.rows[0]?.sets.map((s) => s.label) ?? [];
  out.push(
    `The cell tree of the ${n0(r.offices)}-office scale site (version \`${r.version}\`) rebuilt from its own record chunks with other parameters ` +
      '(generator/write/cells.ts `buildCells`, the published rules: a leaf holds at most *leaf* offices unless at res 9, a block is the coarsest cell with at most *block* offices, a record chunk holds *chunk* records, the shared lists of rows at or above block level are paged by their cell at res *pages*), ' +
      'then the cold query sets of section 3 replayed on each copy, each query on a new site source (empty cache), from the folder. The first row is the site as generated. ' +
      'Each cell is *objects max / decoded bytes max* over the set. The shim needs no change for any row: it reads the parameters from the cell index.',
    '',
    `| Tree (leaf / block / chunk / pages) | Blocks | Record chunks | Largest shared page | ${labels.join(' | ')} | Heaviest query |`,
    `|---|---|---|---|${labels.map(() => '---').join('|')}|---|`,
  );
  for (const row of r.rows) {
    const c = row.config;
    const w = worstOf(row.sets);
    const parts = w
      ? `${w.query}: ${n0(w.objects)} objects, ${fmtBytes(w.bytes)} (${Object.entries(w.byKind)
          .sort((a, b) => b[1].bytes - a[1].bytes)
          .slice(0, 4)
          .map(([k, v]) => `${k} ${v.objects} x = ${fmtBytes(v.bytes)}`)
          .join(', ')})`
      : '–';
    out.push(
      `| ${c.leafMax} / ${c.blockMax} / ${c.recordChunk} / ${c.sharedRes}${row.published ? ' (published)' : ''} | ${n0(row.blocks)} | ${n0(row.recordChunks)} | ${fmtBytes(row.sharedMaxBytes)} | ${row.sets.map((s) => `${n0(s.objects.max)} / ${fmtBytes(s.bytes.max)}`).join(' | ')} | ${parts} |`,
    );
  }
  const packed = r.rows.filter((row) => row.packed !== undefined);
  if (packed.length > 0) {
    const total = packed[0]?.packed?.[0]?.queries ?? 0;
    out.push(
      '',
      `The same trees if each group's cell objects were one packed object read by HTTP byte ranges (bench/cold/packed-ranges.ts): the ${n0(total)} queries of the sets above together, each query's reads as it made them (which objects, in which round), with every block, shared page and record chunk placed at its offset in its group's pack (blocks in the index's order, then the shared pages, then the record chunks) and the ranges of one pack asked in one round merged into one GET when at most *gap* bytes apart (S3 answers one range per GET; a merged gap is read and thrown away). ` +
        `Objects are GETs, bytes what the GETs return; the cell index is charged ${INDEX_BYTES_PER_BLOCK} bytes per block for the offsets a reader would plan ranges from. *Smallest gaps merged to ${FIT_GETS} GETs*: each query's plan merges its smallest gaps first, of any round and pack, until it takes at most ${FIT_GETS} GETs (or none is left), the least bytes a reader knowing every range's offset would pay to stay within that many requests. A what-if on the real reads, not a built layout: a pack would be stored uncompressed (S3 cannot range a gzip object), so its bytes are also its bytes on the wire. ` +
        '*Tree coded*: the cell index, group trees, shared pages and blocks at the size a binary coding of the same values would have (estimated by packed-ranges.ts `codedSize`: integers and steps as zigzag varints, reach in 0.0001-mile units, sha256 as 32 bytes, H3 ids as 8, keys fixed by the schema), record chunks and everything off the tree as stored.',
      '',
      '| Tree (leaf / block / chunk / pages) | Cell objects read as | GETs median / max | Bytes median / max | Over 20 GETs | Over 1 MiB | Most GETs | Most bytes |',
      '|---|---|---|---|---|---|---|---|',
    );
    const tree = (row: (typeof packed)[number]): string =>
      `${row.config.leafMax} / ${row.config.blockMax} / ${row.config.recordChunk} / ${row.config.sharedRes}`;
    let closest: { row: (typeof packed)[number]; f: PackedFigures } | null = null;
    for (const row of packed)
      for (const f of row.packed ?? [])
        if (f.overGets === 0 && (closest === null || f.overBytes < closest.f.overBytes)) closest = { row, f };
    for (const row of packed) {
      const c = row.config;
      for (const f of row.packed ?? [])
        out.push(
          `| ${c.leafMax} / ${c.blockMax} / ${c.recordChunk} / ${c.sharedRes}${row.published ? ' (published)' : ''} | ${readAs(f)}${f.coded ? ', tree coded' : ''} | ${n0(f.gets.median)} / ${n0(f.gets.max)} | ${fmtBytes(f.bytes.median)} / ${fmtBytes(f.bytes.max)} | ${n0(f.overGets)} | ${n0(f.overBytes)} | ${f.gets.query} | ${f.bytes.query} |`,
        );
    }
    out.push(
      '',
      closest === null
        ? 'No tree and way of reading keeps every query within 20 GETs.'
        : `Closest to both targets (every query within 20 GETs, the fewest over 1 MiB): ${tree(closest.row)}, ${readAs(closest.f)}${closest.f.coded ? ', tree coded' : ''}: ${n0(closest.f.overBytes)} of ${n0(closest.f.queries)} queries over 1 MiB, the heaviest ${closest.f.bytes.query} at ${fmtBytes(closest.f.bytes.max)}.`,
    );
  }
  out.push(
    '',
    "How to read it: smaller blocks cut the bytes of the blocks a query reads along the circle's edge but add objects along its circumference, and they move rows from below block level (whose shared lists travel in their block) to at or above it (whose lists are in the group's shared pages), so the pages grow as blocks shrink. " +
      'Finer shared pages cut the bytes of the lists a query reads (only the pages of its inside cells) but add objects where its inside cells span several pages. ' +
      'Packs give the objects back for bytes: every merge saves a GET and reads its gap, so as stored no tree keeps its dense queries within both 20 GETs and 1 MiB; the coded rows show how much of the rest is the JSON text of the cell tree.',
  );
  return out.join('\n');
}
