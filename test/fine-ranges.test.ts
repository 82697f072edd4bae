/**
 * The fine packed layout what-if (bench/cold/fine-layout.ts, fine-ranges.ts): its sizes against the codecs and the
 * stored objects, and the leaf segments it says a query needs against a brute-force distance check over every office
 * of the sample site.
 */
import { withoutProofs } from './helpers/without-proofs.ts';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeBlock } from '../shim/format/block-binary.ts';
import { decodeCoords, decodeSteps } from '../shim/format/block-coords.ts';
import { CellBlock } from '../shim/format/cell-format.ts';
import { packed } from '../shim/format/pb-columns.ts';
import { haversineMiles } from '../shim/search/geo.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { coldQueryReads, wholeObjects } from '../bench/cold/cold.ts';
import {
  chunkSizes,
  fineKey,
  fineLayout,
  fineSite,
  leafSegment,
  leavesByBlock,
  packedBytes,
  proofBytes,
  type FineSite,
} from '../bench/cold/fine-layout.ts';
import { uvarint } from '../bench/cold/packed-ranges.ts';
import { fineQuery, neededSegments, withProofs } from '../bench/cold/fine-ranges.ts';

const dir = process.env.TEST_SITE_DIR as string;
const version = (JSON.parse(readFileSync(join(dir, 'current.json'), 'utf8')) as { version: string }).version;
const site = fineSite(dir, version);
const groups = Object.keys(site.index.groups);

/** Every office of the site: its block, position, unit and degrees, and the leaf row holding it. */
function allOffices(s: FineSite) {
  return groups.flatMap((g) => {
    const t = s.tree(g);
    return [...leavesByBlock(t)].flatMap(([b, leaves]) => {
      const block = t.group.rows.cell[b] ?? '';
      const o = s.offices(block);
      return leaves.flatMap((row) => {
        const at = t.group.rows.at[row] ?? 0;
        return Array.from({ length: t.group.rows.n[row] ?? 0 }, (_, k) => ({
          g,
          row,
          block,
          pos: at + k,
          unit: o.unit[at + k] ?? 0,
          lat: o.lat[at + k] ?? 0,
          lng: o.lng[at + k] ?? 0,
        }));
      });
    });
  });
}

const offices = allOffices(site);

/** The rows from `row` up to the group cell. */
function ancestors(g: string, row: number): number[] {
  const parent = site.tree(g).group.rows.parent;
  const out: number[] = [];
  for (let i = row; i >= 0; i = parent[i] ?? -1) out.push(i);
  return out;
}

describe('fine packed layout', () => {
  it('sizes varints and packed fields as the protobuf writer writes them, and Merkle proofs by tree height', () => {
    for (const values of [[], [0], [1, 127, 128, 16_383, 16_384], [2 ** 31 - 1, 5, 300]]) {
      const w = new BinaryWriter();
      packed(w, 3, 'uint32', values);
      expect(packedBytes(values)).toBe(w.finish().length);
      for (const v of values) expect(uvarint(v)).toBe(new BinaryWriter().uint32(v).finish().length);
    }
    expect([1, 2, 3, 4, 5, 256].map(proofBytes)).toEqual([0, 32, 64, 64, 96, 256]);
  });

  it('sizes record chunks of 32 exactly as stored, and re-chunks every record once', () => {
    for (const g of groups)
      for (const [b] of site.index.blocks[g] ?? []) {
        const rec = site.records(b);
        expect(chunkSizes(b, rec, site.index.record_chunk, site.index.schema_version)).toEqual(rec.stored);
        expect(chunkSizes(b, rec, 1, site.index.schema_version)).toHaveLength(rec.text.length);
      }
  });

  it('codes each leaf as a block message of its own that gives the leaf offices back', () => {
    for (const g of groups) {
      const t = site.tree(g);
      for (const [b, leaves] of leavesByBlock(t)) {
        const o = site.offices(t.group.rows.cell[b] ?? '');
        for (const row of leaves) {
          const s = t.group.rows.at[row] ?? 0;
          const e = s + (t.group.rows.n[row] ?? 0);
          const seg = CellBlock.parse(decodeBlock(Uint8Array.from(encodeSegment(o, s, e))));
          const coords = decodeCoords(seg, seg.listing.length);
          if (typeof coords === 'string') throw new Error(coords);
          expect(seg.listing).toEqual(o.block.listing.slice(s, e));
          expect([...(decodeSteps(seg.dunit) as Int32Array)]).toEqual([...o.unit.subarray(s, e)]);
          expect([...coords.lat]).toEqual([...o.lat.subarray(s, e)]);
          expect([...coords.lng]).toEqual([...o.lng.subarray(s, e)]);
        }
      }
    }
  });

  it('needs every edge office and the nearest firms, against a brute-force distance check', () => {
    const limit = 10;
    let edgeOffices = 0;
    let firms = 0;
    for (const [k, centre] of offices.filter((_, i) => i % 601 === 0).entries())
      for (const R of [1, 5, 15, 50]) {
        const lat = centre.lat + (k % 3) * 0.01;
        const lng = centre.lng - (k % 5) * 0.01;
        const needed = neededSegments(site, groups, { lat, lng, radius: R, shown: [] }, limit);
        const read = (o: (typeof offices)[number]): boolean =>
          needed
            .get(`v/${version}/cells/blocks/${o.block}.pb`)
            ?.has(fineKey.leaf(`v/${version}/cells/blocks/${o.block}.pb`, o.row)) === true;
        const dist = offices.map((o) => haversineMiles(lat, lng, o.lat, o.lng));
        // An office within R is under a row wholly inside the circle, or in a leaf the rule reads.
        offices.forEach((o, i) => {
          if ((dist[i] ?? 0) > R) return;
          if (read(o)) {
            edgeOffices++;
            return;
          }
          const t = site.tree(o.g);
          const inside = ancestors(o.g, o.row).some((r) => {
            const d = haversineMiles(lat, lng, t.lat[r] ?? 0, t.lng[r] ?? 0);
            return d + (t.group.rows.reach[r] ?? 0) <= R;
          });
          expect(inside, `office ${o.block}:${o.pos}, R ${R}`).toBe(true);
        });
        // The limit nearest firms: each one's nearest office is in a leaf the rule reads.
        const best = new Map<number, number>();
        offices.forEach((o, i) => {
          const d = dist[i] ?? 0;
          if (d <= R && (best.get(o.unit) === undefined || d < (dist[best.get(o.unit) ?? 0] ?? 0))) best.set(o.unit, i);
        });
        const nearest = [...best.values()].sort((a, b) => (dist[a] ?? 0) - (dist[b] ?? 0)).slice(0, limit);
        for (const i of nearest)
          expect(read(offices[i] as (typeof offices)[number]), `firm office ${i}, R ${R}`).toBe(true);
        firms += nearest.length;
      }
    // Not vacuous: the circles hold offices read from leaf segments, and firms to show.
    expect(edgeOffices).toBeGreaterThan(1000);
    expect(firms).toBeGreaterThan(100);
  });

  it('replaces a real cold query’s block and record reads by the segments and records it needs', async () => {
    const layout = fineLayout(site, 8);
    for (const [lat, lng, R] of [
      [40.7128, -74.006, 15],
      [41.8781, -87.6298, 1],
      [34.0522, -118.2437, 50],
    ] as const) {
      const q = await coldQueryReads(wholeObjects(new FolderStore(dir)), {
        name: `${lat},${lng}`,
        args: { lat: String(lat), lng: String(lng), radius_miles: String(R) },
      });
      const fine = fineQuery(site, layout, q);
      expect(fine.missed).toBe(0);
      expect(fine.unread).toBe(0);
      const rounds = fine.reads.allRounds ?? [];
      expect(rounds).toHaveLength((q.allRounds ?? []).length);
      for (const key of rounds.flat().filter((k) => k.includes('#') || k.includes('/c8/')))
        expect(layout.placed.has(key), key).toBe(true);
      // The shown firms' records: one chunk of 8 each at most.
      const records = rounds.flat().filter((k) => k.includes('/c8/'));
      expect(records.length).toBeLessThanOrEqual(q.answer?.shown.length ?? 0);
      expect(records.length).toBeGreaterThan(0);
    }
  });

  it('with proofs, reads no hashes/ document: its bytes go to meta.json, the index in it grows as asked, nothing else moves', async () => {
    // A version from before the gazetteer proofs, which reads hashes/ documents (a version with them reads none).
    const older = withoutProofs(dir);
    const q = await coldQueryReads(wholeObjects(new FolderStore(older.dir)), {
      name: 'Chicago, IL',
      args: { location: 'Chicago, IL', radius_miles: '50' },
    }).finally(() => older.remove());
    const hashDocs = q.reads.filter((r) => r.key.includes('/hashes/'));
    expect(hashDocs.length).toBeGreaterThan(0);
    const proved = withProofs(q, 1000);
    const bytes = (reads: typeof q.reads, part: string): number =>
      reads.filter((r) => r.key.endsWith(part)).reduce((n, r) => n + r.bytes, 0);
    expect(proved.reads.filter((r) => r.key.includes('/hashes/'))).toEqual([]);
    expect((proved.allRounds ?? []).flat().filter((k) => k.includes('/hashes/'))).toEqual([]);
    // meta.json carries the cell index: the index's growth is charged to it too.
    expect(q.reads.filter((r) => r.key.endsWith('/cells/index.json'))).toEqual([]);
    expect(bytes(proved.reads, '/meta.json')).toBe(
      bytes(q.reads, '/meta.json') + hashDocs.reduce((n, r) => n + r.bytes, 0) + 1000,
    );
    // Every other read as it was, and the total up by the index's growth alone.
    const others = (reads: typeof q.reads) =>
      reads.filter((r) => !/\/(hashes\/|meta\.json$|cells\/index\.json$)/.test(r.key));
    expect(others(proved.reads)).toEqual(others(q.reads));
    expect(bytes(proved.reads, '')).toBe(bytes(q.reads, '') + 1000);
    expect((proved.allRounds ?? []).flat()).toHaveLength((q.allRounds ?? []).flat().length - hashDocs.length);
  });

  it('fine-sim refuses --index-growth without --proofs as a usage error (exit 2), before reading the site', async () => {
    const r = await new Promise<{ status: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'bench/cold/fine-sim.ts', '--site', '/nonexistent', '--index-growth', '5'],
        (err, _stdout, stderr) =>
          resolve({ status: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr }),
      );
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('fine-sim: --index-growth is for the --proofs rows: give --proofs too');
  }, 60_000);
});

/** The stored bytes of a leaf segment. */
function encodeSegment(o: ReturnType<FineSite['offices']>, s: number, e: number): Uint8Array {
  return encodeBlock(leafSegment(o, s, e));
}
