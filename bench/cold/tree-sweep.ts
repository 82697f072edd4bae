/**
 * Cell-tree parameters at scale: the scale site's cell tree rebuilt from its own records with other leaf, block and
 * record-chunk sizes (generator/write/cells.ts, the published rules with other parameters), and the cold query sets of
 * section 3 replayed on each. Shows how the cold path's objects and bytes trade against each other as blocks shrink.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildCells } from '../../generator/write/cells.ts';
import { serialiseAt } from '../../generator/write/json.ts';
import { hashSerialised, sealCellTree } from '../../generator/write/cell-hashes.ts';
import { recordChunkKeys } from '../../generator/site/scan.ts';
import { openStoredVersion } from '../../generator/site/site.ts';
import { CellIndex, CellRecords } from '../../shim/format/cell-format.ts';
import { paths } from '../../shim/format/paths.ts';
import { keys, Pointer, type StoredOfficeT } from '../../shim/format/site-format.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { coldReadsBySet, summariseCold, type ColdReads } from './cold.ts';
import { PACK_GAPS, packedFigures, type PackedFigures } from './packed-ranges.ts';
import { answerableSets, COLD_CTX, coldQuerySets } from './query-sets.ts';
import { RADII } from '../lib/points.ts';

/** The tree's tuning: offices per leaf and per block at most, records per chunk, resolution of the shared pages. */
export interface TreeConfig {
  leafMax: number;
  blockMax: number;
  recordChunk: number;
  sharedRes: number;
}

/** The configurations measured: the published one (whatever the site's index states) and these. */
export const TREE_SWEEP: readonly TreeConfig[] = [
  { leafMax: 256, blockMax: 4096, recordChunk: 16, sharedRes: 5 },
  { leafMax: 256, blockMax: 2048, recordChunk: 32, sharedRes: 5 },
  { leafMax: 256, blockMax: 2048, recordChunk: 16, sharedRes: 5 },
  { leafMax: 256, blockMax: 1024, recordChunk: 16, sharedRes: 5 },
  { leafMax: 256, blockMax: 256, recordChunk: 16, sharedRes: 5 },
];

/** One configuration's tree and cold reads. */
export interface TreeSweepRow {
  config: TreeConfig;
  /** Whether this is the configuration the site was generated with (measured on the site itself). */
  published: boolean;
  blocks: number;
  recordChunks: number;
  /** Largest shared page, in bytes. */
  sharedMaxBytes: number;
  sets: ColdReads[];
  /** Every query of the sets together as published and as ranges of one pack per group, as stored and coded (packed-ranges.ts). */
  packed?: PackedFigures[];
}

/** What the sweep measured, over which site. */
export interface TreeSweepReport {
  offices: number;
  version: string;
  rows: TreeSweepRow[];
}

const same = (a: TreeConfig, b: TreeConfig): boolean =>
  a.leafMax === b.leafMax &&
  a.blockMax === b.blockMax &&
  a.recordChunk === b.recordChunk &&
  a.sharedRes === b.sharedRes;

/** Every office of version `v` of the site folder `siteDir`, read from its record chunks. */
export async function officesOf(siteDir: string, v: string): Promise<StoredOfficeT[]> {
  const site = await openStoredVersion({ kind: 'folder', dir: siteDir }, v);
  const out: StoredOfficeT[] = [];
  for (const key of (await recordChunkKeys(site)) ?? []) {
    const chunk = await site.json(key, CellRecords);
    if (chunk === null) throw new Error(`${siteDir}: ${key} is listed in its group but missing`);
    out.push(...chunk.offices);
  }
  return out;
}

/**
 * A copy of `siteDir`'s current version in `outDir` whose cell tree is built with `config`; everything else of the
 * version is a symbolic link to the original (the cold path reads only pointer, meta, coverage, gazetteer and cells).
 */
export function writeVariant(
  siteDir: string,
  v: string,
  offices: readonly StoredOfficeT[],
  config: TreeConfig,
  outDir: string,
): { blocks: number; recordChunks: number; sharedMaxBytes: number } {
  rmSync(outDir, { recursive: true, force: true });
  const root = join(outDir, keys.root(v));
  mkdirSync(root, { recursive: true });
  for (const e of readdirSync(join(siteDir, keys.root(v))))
    if (e !== 'cells' && e !== 'meta.json') symlinkSync(resolve(siteDir, keys.root(v), e), join(root, e));
  const tree = buildCells(offices, config);
  // The variant's objects carry their own hashes (docs/SITE-FORMAT.md, "Integrity"), and its meta.json the new index's.
  mkdirSync(join(root, 'cells/packs'), { recursive: true });
  sealCellTree(tree, (group, pack) => writeFileSync(join(root, paths.cellPack(group)), pack));
  let sharedMaxBytes = 0;
  const put = (key: string, doc: unknown): number => {
    const file = join(root, key);
    mkdirSync(dirname(file), { recursive: true });
    const bytes = serialiseAt(key, doc);
    writeFileSync(file, bytes);
    return bytes.byteLength;
  };
  const meta = JSON.parse(readFileSync(join(siteDir, keys.meta(v)), 'utf8')) as {
    sha256?: Record<string, string>;
    cell_index?: unknown;
  };
  if (meta.sha256 !== undefined) meta.sha256[paths.cellIndex()] = hashSerialised(paths.cellIndex(), tree.index);
  if (meta.cell_index !== undefined) meta.cell_index = tree.index;
  const metaText = `${JSON.stringify(meta)}\n`;
  writeFileSync(join(root, paths.meta()), metaText);
  // The pointer names the variant's meta.json by its hash, as a release writes it.
  const pointer = JSON.parse(readFileSync(join(siteDir, keys.pointer), 'utf8')) as { meta_sha256?: string };
  if (pointer.meta_sha256 !== undefined) pointer.meta_sha256 = createHash('sha256').update(metaText).digest('hex');
  writeFileSync(join(outDir, keys.pointer), `${JSON.stringify(pointer)}\n`);
  put(paths.cellIndex(), tree.index);
  for (const g of tree.groups) put(paths.cellGroup(g.cell, g.schema_version), g);
  for (const s of tree.shared)
    sharedMaxBytes = Math.max(sharedMaxBytes, put(paths.cellShared(s.cell, s.schema_version), s));
  for (const b of tree.blocks) put(paths.cellBlock(b.cell), b);
  for (const r of tree.records) put(paths.cellRecords(r.block, r.chunk), r);
  return { blocks: tree.blocks.length, recordChunks: tree.records.length, sharedMaxBytes };
}

/** Size in bytes of the site's largest shared page. */
function sharedMax(siteDir: string, v: string): number {
  const dir = join(siteDir, keys.root(v), 'cells/shared');
  return Math.max(0, ...readdirSync(dir).map((f) => statSync(join(dir, f)).size));
}

/**
 * Throws unless the rebuilt copy in `variantDir` answers every `step`-th cold query exactly as `siteDir` does (count,
 * firms, distances): a copy that answered otherwise would make its figures meaningless.
 */
export async function checkSameAnswers(siteDir: string, variantDir: string, step = 1): Promise<number> {
  const a = createService(createSiteSource(new FolderStore(siteDir)));
  const b = createService(createSiteSource(new FolderStore(variantDir)));
  // A set measured with its refusals resolves names from the gazetteer, which a rebuilt tree does not touch.
  const queries = (await answerableSets(siteDir, coldQuerySets(RADII)))
    .filter((set) => set.refusals !== true)
    .flatMap((set) => set.queries)
    .filter((_, i) => i % step === 0);
  for (const q of queries) {
    const [x, y] = await Promise.all([a.findAttorneys(q.args, COLD_CTX), b.findAttorneys(q.args, COLD_CTX)]);
    const shown = (r: typeof x): string =>
      JSON.stringify([
        r.firms_within_radius,
        r.results.map((f) => [f.listing_id, f.distance_miles, f.offices_within_radius]),
      ]);
    if (shown(x) !== shown(y))
      throw new Error(
        `the tree rebuilt in ${variantDir} answers ${q.name} otherwise: expected ${shown(x).slice(0, 200)}, got ${shown(y).slice(0, 200)}`,
      );
  }
  return queries.length;
}

/** The cold query sets on the site folder `dir` (version `v`): per set, and every query together as packs (packed-ranges.ts). */
async function coldFigures(dir: string, v: string): Promise<Pick<TreeSweepRow, 'sets' | 'packed'>> {
  const bySet = await coldReadsBySet(dir, RADII, undefined, { wholeObjects: true });
  return {
    sets: bySet.map((s) => summariseCold(s.label, s.perQuery)),
    packed: [false, true].flatMap((coded) =>
      packedFigures(
        dir,
        v,
        bySet.flatMap((s) => s.perQuery),
        PACK_GAPS,
        coded,
      ),
    ),
  };
}

/** The published configuration measured on `siteDir` itself, then each of `configs` on a rebuilt copy in `workDir`. */
export async function measureTreeSweep(
  siteDir: string,
  workDir: string,
  configs: readonly TreeConfig[],
  onProgress: (line: string) => void,
): Promise<TreeSweepReport> {
  const v = Pointer.parse(JSON.parse(readFileSync(join(siteDir, keys.pointer), 'utf8'))).version;
  const index = CellIndex.parse(JSON.parse(readFileSync(join(siteDir, keys.cellIndex(v)), 'utf8')));
  const published: TreeConfig = {
    leafMax: index.leaf_max,
    blockMax: index.block_max,
    recordChunk: index.record_chunk,
    sharedRes: index.shared_res,
  };
  const blockCount = (dir: string): number => readdirSync(join(dir, keys.root(v), 'cells/blocks')).length;
  const chunkCount = (dir: string): number =>
    readdirSync(join(dir, keys.root(v), 'cells/records')).reduce(
      (n, b) => n + readdirSync(join(dir, keys.root(v), 'cells/records', b)).length,
      0,
    );
  onProgress(
    `  published tree (leaf ${published.leafMax}, block ${published.blockMax}, chunk ${published.recordChunk}, shared pages at res ${published.sharedRes}): cold query sets`,
  );
  const rows: TreeSweepRow[] = [
    {
      config: published,
      published: true,
      blocks: blockCount(siteDir),
      recordChunks: chunkCount(siteDir),
      sharedMaxBytes: sharedMax(siteDir, v),
      ...(await coldFigures(siteDir, v)),
    },
  ];
  const others = configs.filter((c) => !same(c, published));
  if (others.length === 0) return { offices: index.offices, version: v, rows };
  onProgress(`  reading the ${index.offices} offices of ${v} from its record chunks`);
  const offices = await officesOf(siteDir, v);
  for (const config of others) {
    onProgress(
      `  rebuilding the tree with leaf ${config.leafMax}, block ${config.blockMax}, chunk ${config.recordChunk}, shared pages at res ${config.sharedRes}`,
    );
    const dir = join(workDir, `tree-${config.leafMax}-${config.blockMax}-${config.recordChunk}-${config.sharedRes}`);
    const built = writeVariant(siteDir, v, offices, config, dir);
    const checked = await checkSameAnswers(siteDir, dir, 5);
    onProgress(
      `  ${built.blocks} blocks, ${built.recordChunks} record chunks, ${checked} answers the same as the site's: cold query sets`,
    );
    rows.push({ config, published: false, ...built, ...(await coldFigures(dir, v)) });
    rmSync(dir, { recursive: true, force: true });
  }
  return { offices: index.offices, version: v, rows };
}
