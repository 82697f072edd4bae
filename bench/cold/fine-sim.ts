/**
 * `node --import tsx bench/cold/fine-sim.ts --site DIR [--reads FILE] [--chunk N ...]`: the cold query sets of section
 * 3 replayed on the site (or their reads from FILE, written there by a first run), counted as byte ranges of one packed
 * object per group: as packed-ranges.ts packs the cell objects (the rows of section 11), then in the fine layout of
 * fine-layout.ts (leaf segments, records in chunks of each N) with the ranges each query needs (fine-ranges.ts). Prints
 * a Markdown table and one JSON line on stdout. With --proofs, also with no hashes/ document read (fine-ranges.ts
 * withProofs), and the cell index --index-growth bytes larger.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliOrExit, printUsageError } from '../../shim/lib/cli-run.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { cachedColdReads } from './cold-reads-cache.ts';
import { fineSite, fineLayout } from './fine-layout.ts';
import { fineFigures, withProofs } from './fine-ranges.ts';
import type { ColdQueryReads } from './cold.ts';
import { packedFigures, readAs, type PackedFigures } from './packed-ranges.ts';
import { fmtBytes, progress, table } from '../lib/stats.ts';

const SPEC = {
  name: 'fine-sim',
  usage:
    'node bench/cold/fine-sim.ts --site <dir> [--reads <file>] [--chunk <records> ...] [--proofs] [--index-growth <bytes>]',
  description:
    'The cold query sets on a site, their cell reads counted as byte ranges of packed groups: whole objects, then leaf segments and records in chunks of each --chunk.',
  options: {
    site: { type: 'string', arg: 'dir', required: true, description: 'a generated site' },
    reads: { type: 'string', arg: 'file', description: 'the cold reads, read from here when it exists, else written' },
    chunk: {
      type: 'integer',
      min: 1,
      multiple: true,
      description: 'records per chunk of the fine layout (default 32, 8, 4, 1)',
    },
    proofs: {
      type: 'boolean',
      description:
        'rows with no hashes/ document read: each document carrying a proof to a root in meta.json (its hashes/ bytes charged to meta.json)',
    },
    'index-growth': {
      type: 'integer',
      min: 0,
      arg: 'bytes',
      description:
        'with --proofs, the cell index this much larger (the leaf plan a reader needs to stay at three rounds)',
    },
  },
} as const;
const { values } = cliOrExit(SPEC);
if (values['index-growth'] !== undefined && values.proofs !== true)
  process.exit(printUsageError(SPEC, '--index-growth is for the --proofs rows: give --proofs too'));

const site = resolve(values.site);
const v = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
progress(`fine-sim: the cold query sets on ${v} (${values.site})`);
const perQuery = await cachedColdReads(site, values.reads);
const rows: string[][] = [];
/** A table row of one line of figures. */
const row = (how: string, f: PackedFigures): string[] => [
  how,
  `${f.gets.median} / ${f.gets.max}`,
  `${fmtBytes(f.bytes.median)} / ${fmtBytes(f.bytes.max)}`,
  String(f.overGets),
  String(f.overBytes),
  f.gets.query,
  f.bytes.query,
];
const out: Record<string, unknown>[] = [];
for (const f of packedFigures(site, v, perQuery)) {
  rows.push(row(readAs(f), f));
  out.push({ layout: readAs(f), ...f });
}
const fs = fineSite(site, v);
const chunks = values.chunk !== undefined && values.chunk.length > 0 ? values.chunk : [32, 8, 4, 1];
for (const hashes of ['merkle', 'listed'] as const)
  for (const c of chunks) {
    const t0 = performance.now();
    const layout = fineLayout(fs, c, hashes);
    const records = c === 1 ? 'a range per record' : `record chunks of ${c}`;
    const growth = values['index-growth'] ?? 0;
    for (const [untouched, coded, proofs] of [
      ['whole', false, false],
      ['skip', false, false],
      ['skip', true, false],
      ...(values.proofs === true ? ([['skip', false, true]] as const) : []),
    ] as const) {
      const adjust = proofs ? (q: ColdQueryReads): ColdQueryReads => withProofs(q, growth) : undefined;
      const fine = fineFigures(fs, layout, perQuery, untouched, coded, adjust);
      const { wholeBlocks, wholeChunks, unread, missed } = fine;
      progress(
        `  ${records}, hashes ${hashes}, untouched blocks ${untouched}${coded ? ', index coded' : ''}: ${wholeBlocks} blocks untouched, ${wholeChunks} record chunks read whole, ${unread} segments of unread blocks, ${missed} shown offices missed (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
      for (const { figures: f, heaviest } of fine.rows) {
        const merge = f.fitGets !== undefined ? `smallest gaps merged to ${f.fitGets} GETs` : 'gap 0 B';
        const proved = proofs ? `, no hashes/ reads${growth > 0 ? `, index +${fmtBytes(growth)}` : ''}` : '';
        const how = `fine (${hashes}${untouched === 'skip' ? ', untouched blocks left out' : ''}${coded ? ', index coded' : ''}${proved}): leaf segments, ${records}, ${merge}`;
        rows.push(row(how, f));
        out.push({
          layout: how,
          ...f,
          hashes,
          untouched,
          coded,
          proofs,
          wholeBlocks,
          wholeChunks,
          unread,
          missed,
          heaviest,
        });
      }
    }
  }
process.stdout.write(`${JSON.stringify({ site: values.site, version: v, queries: perQuery.length, rows: out })}\n`);
process.stdout.write(
  `${table(['Cell objects read as', 'GETs median / max', 'Bytes median / max', 'Over 20 GETs', 'Over 1 MiB', 'Most GETs', 'Most bytes'], rows)}\n`,
);
