/**
 * Loading the PostGIS peer: every office the site serves, read from the site folder, written once as a CSV file, then
 * COPY into a table, the GiST index and key built, statistics gathered; each step timed.
 */
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { z } from 'zod';
import { CellGroup, CellIndex } from '../../shim/format/cell-format.ts';
import { keys, Meta, Pointer } from '../../shim/format/site-format.ts';
import { decodeStored } from '../../shim/format/site-json.ts';
import { copyLine, copySql, createTableSql, indexSql, type PeerOffice } from './postgis-sql.ts';

// Only what the peer needs of a record chunk; the full office object is kept as the record.
const ChunkOffices = z.object({
  offices: z.array(
    z.object({ listing_id: z.string(), firm_id: z.string(), lat: z.number(), lng: z.number() }).passthrough(),
  ),
});

/** Every office of the current version of `siteDir`, from its record chunks (each office is in exactly one). */
export function* siteOffices(siteDir: string): Generator<{ office: PeerOffice; record: string }> {
  const read = (key: string): unknown => decodeStored(readFileSync(join(siteDir, key)), key);
  const { version } = Pointer.parse(read(keys.pointer));
  const index = CellIndex.parse(read(keys.cellIndex(version)));
  for (const cell of Object.keys(index.groups).sort()) {
    const group = CellGroup.parse(read(keys.cellGroup(version, cell, index.schema_version)));
    for (const [i, block] of group.rows.cell.entries()) {
      if (group.rows.block[i] !== i) continue;
      for (let k = 0; k * index.record_chunk < (group.rows.n[i] ?? 0); k++) {
        for (const office of ChunkOffices.parse(read(keys.cellRecords(version, block, k))).offices)
          yield { office, record: JSON.stringify(office) };
      }
    }
  }
}

/** Offices the meta document of `siteDir` counts (what the table must hold). */
export function siteOfficeCount(siteDir: string): { version: string; offices: number } {
  const read = (key: string): unknown => JSON.parse(readFileSync(join(siteDir, key), 'utf8'));
  const { version } = Pointer.parse(read(keys.pointer));
  return { version, offices: Meta.parse(read(keys.meta(version))).totals.offices };
}

/** Write the COPY file of `siteDir` to `file`; returns the offices written. */
export async function writeCopyFile(
  siteDir: string,
  file: string,
  onProgress: (done: number) => void,
): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  let chunk = '';
  const flush = async (): Promise<void> => {
    if (!out.write(chunk)) await new Promise<void>((done) => out.once('drain', () => done()));
    chunk = '';
  };
  for (const { office, record } of siteOffices(siteDir)) {
    chunk += copyLine(office, record);
    if (++n % 50_000 === 0) {
      await flush();
      onProgress(n);
    }
  }
  await flush();
  await new Promise<void>((done, fail) => out.end((err?: Error | null) => (err ? fail(err) : done())));
  return n;
}

/** Times and sizes of loading one table. */
export interface LoadReport {
  table: string;
  offices: number;
  copyMs: number;
  gistMs: number;
  keyMs: number;
  analyzeMs: number;
  copyFileBytes: number;
  tableBytes: number;
  gistBytes: number;
}

/** Create `table`, COPY `file` into it, build the GiST index and the key, VACUUM ANALYZE; checks the row count. */
export async function loadTable(
  client: Client,
  table: string,
  file: string,
  expected: number,
  copyFileBytes: number,
): Promise<LoadReport> {
  for (const sql of createTableSql(table)) await client.query(sql);
  const timed = async (f: () => Promise<unknown>): Promise<number> => {
    const t0 = performance.now();
    await f();
    return performance.now() - t0;
  };
  const copyMs = await timed(() => pipeline(createReadStream(file), client.query(copyFrom(copySql(table)))));
  const sql = indexSql(table);
  const gistMs = await timed(() => client.query(sql.gist));
  const keyMs = await timed(() => client.query(sql.key));
  const analyzeMs = await timed(() => client.query(sql.analyze));
  const { rows } = await client.query<{ n: string; t: string; g: string }>(
    `SELECT count(*) AS n, pg_total_relation_size('${table}') AS t, pg_relation_size('${table}_geog') AS g FROM ${table}`,
  );
  const row = rows[0];
  if (row === undefined || Number(row.n) !== expected)
    throw new Error(`postgis: ${table} holds ${row?.n ?? 'no'} rows, the site has ${expected} offices`);
  return {
    table,
    offices: expected,
    copyMs,
    gistMs,
    keyMs,
    analyzeMs,
    copyFileBytes,
    tableBytes: Number(row.t),
    gistBytes: Number(row.g),
  };
}
