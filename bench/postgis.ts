/**
 * The PostGIS peer of the benchmark: the same offices loaded into PostgreSQL + PostGIS (a throwaway cluster), the
 * same queries answered by both after a check that they agree, warm p50/p99 side by side with the ratio.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startJsonChild } from './child.ts';
import { debianPackages, findPostgres, installPostgis, SERVER_SETTINGS, startCluster, type PgInstall } from './postgis-cluster.ts';
import { loadTable, siteOfficeCount, writeCopyFile, type LoadReport } from './postgis-load.ts';
import { tableName } from './postgis-sql.ts';
import { ratioOfP50, type LatencyResult } from './query.ts';
import { SCALE_CACHE_MIB } from './scale.ts';
import type { Spread } from './stats.ts';

/** One dataset of the comparison. */
export interface PeerSite {
  /** Short name used in target names and tables, e.g. "9k", "1m". */
  label: string;
  dir: string;
}

/** A query on which the shim and PostGIS answered differently. */
export interface PeerMismatch {
  site: string;
  radiusMiles: number;
  lat: number;
  lng: number;
  difference: string;
}

/** What the PostGIS section measured, or why not. */
export interface PostgisReport {
  status: 'measured' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  note?: string;
  /** PostgreSQL and PostGIS versions. */
  versions?: { postgres: string; postgis: string };
  sites: { label: string; offices: number; version: string }[];
  loads: LoadReport[];
  /** Copy file writing (reading the site's shards), per site, ms. */
  extractMs: Record<string, number>;
  check: { queries: number; mismatches: PeerMismatch[] } | null;
  latency: LatencyResult[] | null;
  /** p50 PostGIS / p50 shim per site label, per radius (paired within a run). */
  ratios: { label: string; byRadius: Map<number, Spread> }[];
  cacheMib: number;
  runs: number;
  settings: Record<string, string>;
}

/** Options of measurePostgis. */
export interface PostgisOptions {
  sites: PeerSite[];
  outRoot: string;
  /** Run apt-get when PostgreSQL or PostGIS is missing. */
  install: boolean;
  runs: number;
  onProgress: (line: string) => void;
}

/** Find (or install) PostgreSQL + PostGIS, load every site, check answers, time both; never throws for a missing server. */
export async function measurePostgis(opts: PostgisOptions): Promise<PostgisReport> {
  const base: PostgisReport = { status: 'skipped', sites: [], loads: [], extractMs: {}, check: null, latency: null, ratios: [], cacheMib: SCALE_CACHE_MIB, runs: opts.runs, settings: { ...SERVER_SETTINGS } };
  let install: PgInstall | null = findPostgres();
  if (install === null || !install.postgis) {
    if (!opts.install) {
      return { ...base, note: `PostgreSQL with PostGIS is not installed here (Debian: apt-get install ${debianPackages(install).join(' ')}); rerun with --install-postgis to have the benchmark install it` };
    }
    try {
      install = await installPostgis((l) => opts.onProgress(`  [apt] ${l}`));
    } catch (err) {
      return { ...base, status: 'failed', note: `installing PostGIS failed: ${(err as Error).message}` };
    }
  }
  const clusterDir = join(opts.outRoot, 'pg');
  const copyDir = join(opts.outRoot, 'pg-copy');
  opts.onProgress(`  PostgreSQL ${install.major} from ${install.bin}: throwaway cluster in ${clusterDir} (unix socket only)`);
  const cluster = await startCluster(install, clusterDir, (l) => opts.onProgress(`  [pg] ${l}`));
  const report: PostgisReport = { ...base, status: 'measured' };
  try {
    const client = new pg.Client({ host: cluster.socketDir, port: cluster.port, user: cluster.user, database: cluster.database });
    await client.connect();
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS postgis');
      const { rows } = await client.query<{ pg: string; gis: string }>("SELECT current_setting('server_version') AS pg, postgis_lib_version() AS gis");
      report.versions = { postgres: rows[0]?.pg ?? '?', postgis: rows[0]?.gis ?? '?' };
      mkdirSync(copyDir, { recursive: true });
      for (const site of opts.sites) {
        const { version, offices } = siteOfficeCount(site.dir);
        report.sites.push({ label: site.label, offices, version });
        const file = join(copyDir, `${site.label}.csv`);
        opts.onProgress(`  ${site.label}: writing ${offices} offices as COPY rows`);
        const t0 = performance.now();
        const written = await writeCopyFile(site.dir, file, (n) => opts.onProgress(`  ${site.label}: ${n}/${offices} offices written`));
        report.extractMs[site.label] = performance.now() - t0;
        if (written !== offices) throw new Error(`the shards of ${site.dir} hold ${written} offices, its meta counts ${offices}`);
        opts.onProgress(`  ${site.label}: COPY into ${tableName(site.label)}, GiST index, key, VACUUM ANALYZE`);
        const load = await loadTable(client, tableName(site.label), file, offices, statSync(file).size);
        rmSync(file, { force: true });
        opts.onProgress(`  ${site.label}: COPY ${(load.copyMs / 1000).toFixed(1)} s, GiST ${(load.gistMs / 1000).toFixed(1)} s, key ${(load.keyMs / 1000).toFixed(1)} s, analyze ${(load.analyzeMs / 1000).toFixed(1)} s`);
        report.loads.push(load);
      }
    } finally {
      await client.end();
    }
    const siteArgs = opts.sites.flatMap((s) => ['--site', `${s.label}=${s.dir}:${tableName(s.label)}`]);
    const child = await startJsonChild<{ check: PostgisReport['check']; latency: LatencyResult[] }>(
      'bench/postgis-query.ts',
      ['--socket', cluster.socketDir, '--port', String(cluster.port), '--user', cluster.user, ...siteArgs, '--runs', String(opts.runs), '--cache-mib', String(SCALE_CACHE_MIB)],
      { tag: 'postgis-query', nodeArgs: ['--max-old-space-size=8192'] },
    );
    await child.stop();
    report.check = child.first.check;
    report.latency = child.first.latency;
    report.ratios = opts.sites.map((s) => ({ label: s.label, byRadius: ratioOfP50(child.first.latency, `postgis ${s.label}`, `shim ${s.label}`) }));
  } catch (err) {
    report.status = 'failed';
    report.note = (err as Error).message;
    opts.onProgress(`  PostGIS peer failed: ${report.note}`);
  } finally {
    opts.onProgress('  stopping the throwaway cluster');
    await cluster.stop();
    rmSync(copyDir, { recursive: true, force: true });
  }
  return report;
}
