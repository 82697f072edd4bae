/**
 * The cell-tree sweep of the benchmark (bench/cold/tree-sweep.ts, section 11): the sample's tree rebuilt with other
 * parameters is a site that answers exactly as the published one, and the sweep reports what it built; the commands
 * that leave such a copy in a folder (bench/cold/tree-variant.ts) and time it beside the site (bench/scale/warm-tail.ts).
 * No timing.
 */
import { decodeStored } from '../shim/format/site-json.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { treeSweepSection } from '../bench/cold/tree-sweep-report.ts';
import { checkSameAnswers, measureTreeSweep, officesOf, writeVariant } from '../bench/cold/tree-sweep.ts';
import { CellBlock, CellIndex } from '../shim/format/cell-format.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';

const site = process.env.TEST_SITE_DIR as string;
const work = mkdtempSync(join(tmpdir(), 'iad-tree-sweep-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cell-tree sweep', () => {
  it(
    'measures the published tree and a deep rebuilt one, which answers as the site does',
    { timeout: 120_000 },
    async () => {
      const v = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
      const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
      const deep = { leafMax: 8, blockMax: 40, recordChunk: 5, sharedRes: 6 };
      const lines: string[] = [];
      const r = await measureTreeSweep(
        site,
        work,
        [
          {
            leafMax: index.leaf_max,
            blockMax: index.block_max,
            recordChunk: index.record_chunk,
            sharedRes: index.shared_res,
          },
          deep,
        ],
        (l) => lines.push(l),
      );
      expect(r.offices).toBe(index.offices);
      expect(r.rows.map((row) => [row.config, row.published])).toEqual([
        [
          {
            leafMax: index.leaf_max,
            blockMax: index.block_max,
            recordChunk: index.record_chunk,
            sharedRes: index.shared_res,
          },
          true,
        ],
        [deep, false],
      ]);
      const [published, rebuilt] = r.rows;
      // Blocks of at most 40 offices and chunks of 5 records: many more of each than the published tree's.
      expect(rebuilt?.blocks).toBeGreaterThan(2 * (published?.blocks ?? 0));
      expect(rebuilt?.recordChunks).toBeGreaterThanOrEqual(Math.ceil(index.offices / deep.recordChunk));
      expect(published?.recordChunks).toBeGreaterThanOrEqual(Math.ceil(index.offices / index.record_chunk));
      // The same query sets on both, each query reading at least the pointer, meta, coverage cells and cell index.
      expect(rebuilt?.sets.map((s) => [s.label, s.queries])).toEqual(published?.sets.map((s) => [s.label, s.queries]));
      for (const s of [...(published?.sets ?? []), ...(rebuilt?.sets ?? [])])
        expect(s.objects.max).toBeGreaterThanOrEqual(4);
      expect(lines.some((l) => /answers the same as the site's/.test(l))).toBe(true);
      const section = treeSweepSection(r);
      expect(section).toContain(`| ${deep.leafMax} / ${deep.blockMax} / ${deep.recordChunk} / ${deep.sharedRes} |`);
      expect(section).toContain('(published)');
      // As packs: the same queries, the published objects first; merging across a gap never adds GETs.
      for (const row of [published, rebuilt])
        for (const coded of [false, true]) {
          const rows = row?.packed?.filter((f) => f.coded === coded) ?? [];
          const [asIs, ...packs] = rows.filter((f) => f.fitGets === undefined);
          // A plan fitted to 20 GETs keeps every query within them (none reads 20 objects off the tree).
          const fitted = rows.find((f) => f.fitGets !== undefined);
          expect(fitted?.gets.max).toBeLessThanOrEqual(20);
          expect(fitted?.overGets).toBe(0);
          const queries = row?.sets.reduce((n, s) => n + s.queries, 0);
          expect(asIs?.gap).toBe(null);
          expect(asIs?.gets.max).toBe(Math.max(...(row?.sets ?? []).map((s) => s.objects.max)));
          // Stored, the objects read as published weigh what the query sets read; coded, less.
          const stored = Math.max(...(row?.sets ?? []).map((s) => s.bytes.max));
          if (coded) expect(asIs?.bytes.max).toBeLessThan(stored);
          else expect(asIs?.bytes.max).toBe(stored);
          expect(packs.map((f) => f.queries)).toEqual(packs.map(() => queries));
          for (let i = 1; i < packs.length; i++)
            expect(packs[i]?.gets.median).toBeLessThanOrEqual(packs[i - 1]?.gets.median ?? 0);
        }
      expect(section).toContain('| packs, gap 64.0 KiB |');
      expect(section).toContain('| packs, gap 64.0 KiB, tree coded |');
    },
  );

  it('refuses a copy that answers otherwise', { timeout: 120_000 }, async () => {
    const v = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;
    const offices = await officesOf(site, v);
    const index = CellIndex.parse(JSON.parse(readFileSync(join(site, keys.cellIndex(v)), 'utf8')));
    expect(offices.length).toBe(index.offices);
    const same = join(work, 'same');
    writeVariant(
      site,
      v,
      offices,
      {
        leafMax: index.leaf_max,
        blockMax: index.block_max,
        recordChunk: index.record_chunk,
        sharedRes: index.shared_res,
      },
      same,
    );
    await expect(checkSameAnswers(site, same, 3)).resolves.toBeGreaterThan(100);
    // Every tenth office left out of the copy's tree: some count or list differs.
    const fewer = join(work, 'fewer');
    writeVariant(
      site,
      v,
      offices.filter((_, i) => i % 10 !== 0),
      {
        leafMax: index.leaf_max,
        blockMax: index.block_max,
        recordChunk: index.record_chunk,
        sharedRes: index.shared_res,
      },
      fewer,
    );
    await expect(checkSameAnswers(site, fewer, 3)).rejects.toThrow(/answers .* otherwise: expected/);
  });

  it('leaves a copy with other record chunks that the warm tail times beside the site', { timeout: 120_000 }, () => {
    const copy = join(work, 'chunk-5');
    const tsx = (args: string[]): string =>
      execFileSync(process.execPath, ['--import', 'tsx', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    const made = JSON.parse(tsx(['bench/cold/tree-variant.ts', '--site', site, '--out', copy, '--chunk', '5'])) as {
      version: string;
      config: { recordChunk: number };
      recordChunks: number;
      sameAnswers: number;
    };
    expect(made.config.recordChunk).toBe(5);
    expect(made.sameAnswers).toBeGreaterThan(50);
    // The copy's index states the chunk size, and every block lists one hash per 5 of its offices.
    const root = join(copy, keys.root(made.version));
    const index = CellIndex.parse(JSON.parse(readFileSync(join(root, 'cells/index.json'), 'utf8')));
    expect(index.record_chunk).toBe(5);
    let chunks = 0;
    for (const f of readdirSync(join(root, 'cells/blocks'))) {
      const block = CellBlock.parse(decodeStored(readFileSync(join(root, 'cells/blocks', f)), `cells/blocks/${f}`));
      expect(block.records_sha256.length).toBe(Math.ceil(block.listing.length / 5));
      chunks += block.records_sha256.length;
    }
    expect(chunks).toBe(made.recordChunks);
    const lines = tsx([
      'bench/scale/warm-tail.ts',
      '--site',
      site,
      '--site',
      copy,
      '--runs',
      '1',
      '--passes',
      '1',
      '--radii',
      '15',
    ])
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { site: string; radiusMiles: number; queriesPerRun: number; p99Ms: { median: number } },
      );
    expect(lines.map((l) => [l.site, l.radiusMiles, l.queriesPerRun])).toEqual([
      [site, 15, 15],
      [copy, 15, 15],
    ]);
    for (const l of lines) expect(l.p99Ms.median).toBeGreaterThan(0);
  });
});
