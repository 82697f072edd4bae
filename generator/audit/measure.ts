/**
 * `audit measure`: recompute every office's map_visibility and every firm's brand_index from the version's published
 * measurement documents and compare them with what the version publishes (record chunks, firm documents in their packs, meta, coverage).
 */
import type { ZodType } from 'zod';
import {
  CoverageCells,
  CoverageDoc,
  firmPackPrefix,
  FirmPack,
  keys,
  MeasurementDoc,
  type MeasurementDocT,
  type StoredOfficeT,
} from '../../shim/format/site-format.ts';
import { mapPool } from '../write/pool.ts';
import { progressEvery } from '../write/progress.ts';
import { firmDocBrand, recompute, type ExpectedOffice, type Recomputed } from './measure-recompute.ts';
import { scanOffices } from '../site/scan.ts';
import { StoreError } from '../../shim/contract/errors.ts';
import { openSite, type AuditLocation } from '../site/site.ts';

/** One published value that differs from the recomputed one. */
export interface Mismatch {
  /** Where the published value is: "cells/records", "firms/<prefix>.json" (a firm pack), "meta.json", "coverage.json", "measurement/<metro>.json". */
  where: string;
  /** The office or metro it is about. */
  subject: string;
  field: string;
  expected: unknown;
  got: unknown;
}

/** What measure found. */
export interface MeasureReport {
  site: string;
  version: string;
  week: string;
  metros: number;
  grid_samples: number;
  offices: number;
  measured_offices: number;
  firm_documents: number;
  /** Problems found while reading the cell tree (missing, misplaced, counts). */
  problems: string[];
  mismatches: Mismatch[];
}

/** Options of measure. */
export interface MeasureOptions {
  site: AuditLocation;
  version?: string;
  /** Also check every firm document (default true). */
  firms?: boolean;
  concurrency?: number;
  log?: (line: string) => void;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Compare an office record's measurement fields with the recomputed ones. */
function compareOffice(where: string, o: StoredOfficeT, e: ExpectedOffice | undefined, out: Mismatch[]): void {
  const subject = `office ${o.listing_id} (${o.name}, ${o.city} ${o.state})`;
  if (e === undefined) {
    out.push({ where, subject, field: 'listing', expected: 'an office of the cell tree', got: 'not in the cell tree' });
    return;
  }
  if (o.metro !== e.metro) out.push({ where, subject, field: 'metro', expected: e.metro, got: o.metro });
  for (const f of ['top3_share_pct', 'appears_share_pct'] as const) {
    const got = o.visibility?.[f] ?? null;
    const want = e.visibility?.[f] ?? null;
    if (got !== want) out.push({ where, subject, field: `map_visibility.${f}`, expected: want, got });
  }
  for (const f of ['top3_share_pct', 'appears_share_pct', 'offices_measured'] as const) {
    const got = o.brand?.[f] ?? null;
    const want = e.brand?.[f] ?? null;
    if (got !== want) out.push({ where, subject, field: `brand_index.${f}`, expected: want, got });
  }
}

/** Read one version, recompute, compare. Throws StoreError when the version cannot be read as a site. */
export async function measure(opts: MeasureOptions): Promise<MeasureReport> {
  const site = await openSite(opts.site, opts.version);
  const v = site.version;
  const log = opts.log;
  const concurrency = opts.concurrency ?? 16;
  const required = async <T>(key: string, schema: ZodType<T>): Promise<T> => {
    const x = await site.json(key, schema);
    if (x === null) throw new StoreError(`${site.label}: version ${v} has no ${key}`, key);
    return x;
  };
  const coverage = await required(keys.coverage(v), CoverageDoc);
  const cells = await required(keys.coverageCells(v), CoverageCells);
  const slugs = Object.keys(site.meta.metros).sort();
  log?.(`measure: reading the measurement of ${slugs.length} metros`);
  const measurement: MeasurementDocT[] = await mapPool(slugs, concurrency, (slug) =>
    required(keys.measurement(v, slug), MeasurementDoc),
  );
  log?.(`measure: reading the offices of ${site.label} version ${v}`);
  const scan = await scanOffices(site, { concurrency, ...(log ? { log } : {}) });

  const r: Recomputed = recompute({
    measurement,
    offices: scan.offices,
    centres: new Map(coverage.metros.map((m) => [m.slug, m.center])),
    coverageCells: cells.cells,
    coverageRes: cells.res,
  });
  const mismatches: Mismatch[] = [];
  for (const [i, doc] of measurement.entries()) {
    const where = `measurement/${slugs[i] ?? doc.metro}.json`;
    if (doc.metro !== slugs[i])
      mismatches.push({
        where,
        subject: `metro ${slugs[i] ?? ''}`,
        field: 'metro',
        expected: slugs[i],
        got: doc.metro,
      });
    for (const p of doc.points) {
      for (const q of Object.keys(p.ranked))
        if (!doc.queries.includes(q))
          mismatches.push({
            where,
            subject: `point ${p.point_id}`,
            field: 'query',
            expected: `one of ${doc.queries.join(', ')}`,
            got: q,
          });
    }
  }
  for (const u of r.unknownRanked) {
    mismatches.push({
      where: `measurement/${u.metro}.json`,
      subject: `point ${u.point_id}, "${u.query}"`,
      field: 'ranked',
      expected: 'a listing id of this version, or null',
      got: u.listing_id,
    });
  }
  for (const slug of slugs) {
    const want = r.sampling.get(slug);
    const inMeta = site.meta.metros[slug];
    const inCoverage = coverage.metros.find((m) => m.slug === slug);
    for (const f of ['grid_points', 'queries', 'grid_samples'] as const) {
      if (inMeta?.[f] !== want?.[f])
        mismatches.push({
          where: 'meta.json',
          subject: `metro ${slug}`,
          field: f,
          expected: want?.[f],
          got: inMeta?.[f],
        });
      if (inCoverage?.[f] !== want?.[f])
        mismatches.push({
          where: 'coverage.json',
          subject: `metro ${slug}`,
          field: f,
          expected: want?.[f],
          got: inCoverage?.[f],
        });
    }
  }
  for (const o of scan.offices) compareOffice('cells/records', o, r.offices.get(o.listing_id), mismatches);

  let firmDocuments = 0;
  if (opts.firms ?? true) {
    const progress = progressEvery(log);
    let done = 0;
    const byPack = new Map<string, StoredOfficeT[]>();
    for (const o of scan.offices) {
      const prefix = firmPackPrefix(o.listing_id, site.meta.listing_prefix_length);
      const list = byPack.get(prefix);
      if (list === undefined) byPack.set(prefix, [o]);
      else list.push(o);
    }
    const perPack = await mapPool([...byPack], concurrency, async ([prefix, inPack]) => {
      const pack = await site.json(keys.firmPack(v, prefix), FirmPack);
      const where = `firms/${prefix}.json`;
      const docs = new Map(pack?.documents.map((d) => [d.listing_id, d]));
      const found: Mismatch[] = [];
      for (const o of inPack) {
        progress(++done, scan.offices.length, 'measure: firm documents');
        const doc = docs.get(o.listing_id);
        if (doc === undefined) {
          found.push({
            where,
            subject: `office ${o.listing_id}`,
            field: 'document',
            expected: 'present',
            got: 'missing',
          });
          continue;
        }
        for (const x of [doc.office, ...doc.other_offices]) compareOffice(where, x, r.offices.get(x.listing_id), found);
        const want = firmDocBrand(r, o);
        if (!same(doc.firm.brand, want))
          found.push({
            where,
            subject: `firm ${o.firm_id} of office ${o.listing_id} (${o.name})`,
            field: 'firm.brand_index',
            expected: want,
            got: doc.firm.brand,
          });
      }
      return found;
    });
    firmDocuments = done;
    for (const found of perPack) mismatches.push(...found);
  }
  let samples = 0;
  for (const s of r.sampling.values()) samples += s.grid_samples;
  return {
    site: site.label,
    version: v,
    week: site.meta.week,
    metros: slugs.length,
    grid_samples: samples,
    offices: scan.offices.length,
    measured_offices: [...r.offices.values()].filter((e) => e.metro !== null).length,
    firm_documents: firmDocuments,
    problems: scan.problems,
    mismatches,
  };
}

/** 0 when everything matches, 1 otherwise. */
export function measureExitCode(r: MeasureReport): number {
  return r.problems.length === 0 && r.mismatches.length === 0 ? 0 : 1;
}

/** The report as text; `max` mismatch lines (0 = all). */
export function formatMeasureReport(r: MeasureReport, max = 50): string {
  const lines = [
    `audit measure: ${r.site} version ${r.version} (${r.week})`,
    `recomputed from the published measurement: ${r.metros} metros, ${r.grid_samples} grid samples, ${r.measured_offices} of ${r.offices} offices measured`,
    `compared: office records of the cell tree (${r.offices} offices), ${r.firm_documents} firm documents, meta.json and coverage.json sampling`,
  ];
  for (const p of r.problems) lines.push(`PROBLEM ${p}`);
  const shown = max > 0 ? r.mismatches.slice(0, max) : r.mismatches;
  for (const m of shown)
    lines.push(
      `MISMATCH ${m.where}: ${m.subject}: ${m.field} expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.got)}`,
    );
  if (shown.length < r.mismatches.length)
    lines.push(`... ${r.mismatches.length - shown.length} more mismatches (--max 0 or --json for all)`);
  lines.push(
    measureExitCode(r) === 0
      ? 'OK: every published share equals its recomputation'
      : `FAILED: ${r.mismatches.length} mismatch(es), ${r.problems.length} cell tree problem(s)`,
  );
  return `${lines.join('\n')}\n`;
}
