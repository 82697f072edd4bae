/**
 * The pure parts of the benchmark's PostGIS peer, without a database: the COPY rows, the radius conversion, the SQL
 * text's guard on table names, the parsing of result rows, the comparison with the shim's answer, where the Debian
 * binaries are looked for, and the report section. (The peer's answers are checked against the shim's by the
 * benchmark itself, on a real cluster.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { debianPackages, findPostgres, majorsIn } from '../bench/peers/postgis-cluster.ts';
import { POSTGIS_HEADING, postgisSection, postgisTargetRow } from '../bench/peers/postgis-report.ts';
import {
  answerDifference,
  copyLine,
  copySql,
  METRES_PER_SHIM_MILE,
  parseSearchRows,
  radiusMetres,
  searchSql,
  tableName,
  type ComparableAnswer,
} from '../bench/peers/postgis-sql.ts';
import type { PostgisReport } from '../bench/peers/postgis.ts';
import { renderReport } from '../bench/report.ts';
import { spread } from '../bench/lib/stats.ts';
import { haversineMiles } from '../shim/search/geo.ts';

/** A CSV line split into fields (RFC 4180 quoting), written here independently of copyLine. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  const text = line.replace(/\n$/, '');
  while (i <= text.length) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quote');
        value += text.slice(i, q);
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(value);
      i++;
    } else {
      const c = text.indexOf(',', i);
      const end = c < 0 ? text.length : c;
      fields.push(text.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

describe('COPY rows', () => {
  it('carry ids, exact coordinates as EWKT and the record, quoted when it needs it', () => {
    const office = { listing_id: 'l_abc', firm_id: 'f_def', lat: 40.71277581234567, lng: -74.0059731 };
    const record = JSON.stringify({ ...office, name: 'Smith, "Jones" & Co\\', address: 'a,b' });
    const line = copyLine(office, record);
    expect(line.endsWith('\n')).toBe(true);
    const fields = csvFields(line);
    expect(fields).toHaveLength(4);
    expect(fields[0]).toBe('l_abc');
    expect(fields[1]).toBe('f_def');
    const m = /^SRID=4326;POINT\((\S+) (\S+)\)$/.exec(fields[2] ?? '');
    expect(m).not.toBeNull();
    expect(Number(m?.[1])).toBe(office.lng);
    expect(Number(m?.[2])).toBe(office.lat);
    expect(JSON.parse(fields[3] ?? '')).toEqual(JSON.parse(record));
  });

  it('refuse an office without finite coordinates', () => {
    expect(() => copyLine({ listing_id: 'l_x', firm_id: 'f_x', lat: Number.NaN, lng: 1 }, '{}')).toThrow(/l_x/);
  });
});

describe('radius', () => {
  it('draws the shim circle on PostGIS sphere: metres are the shim angle times the mean WGS84 radius', () => {
    // PostGIS documents its sphere as the mean radius of WGS84, (2a + b) / 3 = 6,371,008.77 m.
    const a = 6378137;
    const b = a * (1 - 1 / 298.257223563);
    const sphere = (2 * a + b) / 3;
    const miles = haversineMiles(40.7128, -74.006, 40.9, -73.7);
    const angle = miles / 3958.8;
    expect(radiusMetres(miles)).toBeCloseTo(angle * sphere, 3);
    expect(radiusMetres(1)).toBeCloseTo(METRES_PER_SHIM_MILE, 9);
    expect(METRES_PER_SHIM_MILE).toBeCloseTo(1609.34, 1);
  });
});

describe('SQL text', () => {
  it('takes only plain table names, so nothing from outside reaches the statement', () => {
    expect(tableName('1m')).toBe('offices_1m');
    expect(tableName('9077')).toBe('offices_9077');
    expect(() => tableName('x; DROP TABLE y')).toThrow(/table name/);
    expect(() => searchSql('offices; DROP TABLE y')).toThrow(/bad table name/);
    expect(() => copySql('Offices')).toThrow(/bad table name/);
  });

  it('searches through ST_DWithin on the sphere, one row per firm, ordered by distance then listing_id', () => {
    const sql = searchSql('offices_1m');
    expect(sql).toMatch(/ST_DWithin\(o\.geog, q\.g, \$3::float8, false\)/);
    expect(sql).toMatch(/DISTINCT ON \(firm_id\)[\s\S]*ORDER BY firm_id, d, listing_id/);
    expect(sql).toMatch(/ORDER BY d, listing_id LIMIT \$4::int/);
    expect(sql).toMatch(/count\(\*\) OVER \(\)/);
  });
});

describe('result rows', () => {
  const row = (listing_id: string, d: number, n: string, firms: string): Record<string, unknown> => ({
    listing_id,
    d,
    n,
    firms,
    record: '{}',
  });

  it('become the firm count and the hits in miles', () => {
    const a = parseSearchRows([row('l_a', 1609.344, '2', '7'), row('l_b', 3218.688, '1', '7')]);
    expect(a.firmsWithinRadius).toBe(7);
    expect(a.hits.map((h) => h.listingId)).toEqual(['l_a', 'l_b']);
    expect(a.hits.map((h) => h.officesWithinRadius)).toEqual([2, 1]);
    expect(a.hits[0]?.distanceMiles).toBeCloseTo(1609.344 / METRES_PER_SHIM_MILE, 12);
  });

  it('mean no firm when there are none', () => {
    expect(parseSearchRows([])).toEqual({ firmsWithinRadius: 0, hits: [] });
  });

  it('are refused when malformed or inconsistent', () => {
    expect(() => parseSearchRows([{ listing_id: 'l_a', d: 'far' }])).toThrow(/row 0/);
    expect(() => parseSearchRows([row('l_a', 1, '1', '3'), row('l_b', 2, '1', '4')])).toThrow(/firm count/);
  });
});

describe('answer comparison', () => {
  const answer = (ids: string[], firms = ids.length): ComparableAnswer => ({
    firms_within_radius: firms,
    results: ids.map((listing_id, i) => ({ listing_id, distance_miles: i + 0.5, offices_within_radius: 1 })),
  });

  it('finds none between equal answers', () => {
    expect(answerDifference(answer(['l_a', 'l_b']), answer(['l_a', 'l_b']))).toBeNull();
  });

  it('names the first difference: count, order, offices, distance', () => {
    expect(answerDifference(answer(['l_a'], 5), answer(['l_a'], 6))).toMatch(/firms_within_radius: shim 5, postgis 6/);
    expect(answerDifference(answer(['l_a', 'l_b']), answer(['l_b', 'l_a']))).toMatch(/results\[0\]\.listing_id/);
    const more = answer(['l_a']);
    expect(
      answerDifference(answer(['l_a']), {
        ...more,
        results: [{ listing_id: 'l_a', distance_miles: 0.5, offices_within_radius: 2 }],
      }),
    ).toMatch(/offices_within_radius/);
    expect(
      answerDifference(answer(['l_a']), {
        ...more,
        results: [{ listing_id: 'l_a', distance_miles: 0.52, offices_within_radius: 1 }],
      }),
    ).toMatch(/distance_miles/);
    expect(
      answerDifference(answer(['l_a']), {
        ...more,
        results: [{ listing_id: 'l_a', distance_miles: 0.51, offices_within_radius: 1 }],
      }),
    ).toBeNull();
  });
});

describe('finding PostgreSQL', () => {
  const root = mkdtempSync(join(tmpdir(), 'pg-find-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const server = (major: number, postgis: boolean): void => {
    const bin = join(root, 'lib', String(major), 'bin');
    mkdirSync(bin, { recursive: true });
    for (const b of ['initdb', 'pg_ctl', 'postgres']) writeFileSync(join(bin, b), '');
    if (postgis) {
      mkdirSync(join(root, 'share', String(major), 'extension'), { recursive: true });
      writeFileSync(join(root, 'share', String(major), 'extension', 'postgis.control'), '');
    }
  };

  it('orders Debian major versions newest first', () => {
    expect(majorsIn(['9', '15', 'common', '16'])).toEqual([16, 15, 9]);
  });

  it('prefers the newest server that has PostGIS, and says when none has it', () => {
    expect(findPostgres(join(root, 'lib'), join(root, 'share'))).toBeNull();
    server(16, false);
    expect(findPostgres(join(root, 'lib'), join(root, 'share'))).toEqual({
      major: 16,
      bin: join(root, 'lib', '16', 'bin'),
      postgis: false,
    });
    server(15, true);
    expect(findPostgres(join(root, 'lib'), join(root, 'share'))).toMatchObject({ major: 15, postgis: true });
  });

  it('names the Debian packages to install', () => {
    expect(debianPackages(null)).toEqual(['postgresql', 'postgresql-postgis']);
    expect(debianPackages({ major: 15, bin: '/x', postgis: false })).toEqual(['postgresql-15-postgis-3']);
  });
});

describe('report section', () => {
  const lat = (
    target: string,
    radiusMiles: number,
    p50: number[],
  ): PostgisReport['latency'] extends (infer T)[] | null ? T : never => ({
    target,
    radiusMiles,
    p50: spread(p50),
    p99: spread(p50.map((v) => v * 3)),
    p50Runs: p50,
    queries: 300,
    storeReadsTimed: target.startsWith('shim') ? 0 : null,
    firmsWithinRadius: 42,
  });
  const measured = (postgisP50: number): PostgisReport => ({
    status: 'measured',
    versions: { postgres: '15.18', postgis: '3.3.2' },
    sites: [{ label: '9077', offices: 9077, version: '2026-W47-aa', origin: 'generated by this run' }],
    loads: [
      {
        table: 'offices_9077',
        offices: 9077,
        copyMs: 300,
        gistMs: 100,
        keyMs: 90,
        analyzeMs: 500,
        copyFileBytes: 1e7,
        tableBytes: 1e7,
        gistBytes: 7e5,
      },
    ],
    extractMs: { '9077': 4000 },
    check: { queries: 180, mismatches: [] },
    latency: [lat('shim 9077', 15, [0.1, 0.1]), lat('postgis 9077', 15, [postgisP50, postgisP50])],
    ratios: [{ label: '9077', byRadius: new Map([[15, spread([postgisP50 / 0.1, postgisP50 / 0.1])]]) }],
    cacheMib: 3072,
    runs: 2,
    settings: { jit: 'off' },
  });

  it('says why it was skipped', () => {
    const md = postgisSection(
      {
        ...measured(1),
        status: 'skipped',
        note: 'PostgreSQL with PostGIS is not installed here',
        loads: [],
        latency: null,
        check: null,
      },
      'npm run bench',
    );
    expect(md.startsWith(POSTGIS_HEADING)).toBe(true);
    expect(md).toContain('Skipped: PostgreSQL with PostGIS is not installed here.');
  });

  it('shows load, check, latency and the ratio, and judges the target', () => {
    const md = postgisSection(measured(5), 'npm run bench -- --only postgis');
    expect(md).toContain('| 9,077 | 9.5 MiB | 300.0 ms | 100.0 ms | 90.0 ms | 500.0 ms | **990.0 ms** |');
    expect(md).toContain('every answer agreed');
    expect(md).toMatch(/\| 15 mi \| postgis 9,077 \| 5\.00 ms/);
    expect(md).toMatch(/\| 15 mi \| 50\.00x \(/);
    expect(md).toContain('`npm run bench -- --only postgis`');
    expect(postgisTargetRow(measured(5)).ok).toBe(true);
    expect(postgisTargetRow(measured(0.05)).ok).toBe(false);
    expect(postgisTargetRow(undefined).ok).toBeNull();
  });

  it('lists the answers that differed', () => {
    const r = measured(5);
    r.check = {
      queries: 180,
      mismatches: [
        { site: '9077', radiusMiles: 15, lat: 40.7, lng: -74, difference: 'firms_within_radius: shim 5, postgis 6' },
      ],
    };
    const md = postgisSection(r, 'npm run bench');
    expect(md).toContain('**1 differed**');
    expect(md).toContain('| 9,077 | 15 mi | 40.7, -74 | firms_within_radius: shim 5, postgis 6 |');
    expect(postgisTargetRow(r).note).toMatch(/1 answers differed/);
  });

  it('has its place in BENCHMARKS.md after page weight, where --update puts a new section', () => {
    const md = renderReport({
      machine: {
        cpuModel: 'x',
        cores: 2,
        memoryBytes: 1,
        os: 'linux',
        node: 'v20',
        commit: 'abc',
        dirty: false,
        loadStart: 0,
        loadEnd: 0,
      },
      command: 'npm run bench',
      startedAt: '2026-01-01T00:00:00Z',
      durationMs: 1,
      quick: false,
      sample: {
        siteDir: 'bench/out/site-sample',
        version: 'v',
        offices: 9077,
        generate: null,
        shards: { indexBytes: 1, perRes: [] },
      },
      postgis: measured(5),
    });
    expect(md.indexOf('## 6. Page weight')).toBeLessThan(md.indexOf(POSTGIS_HEADING));
    expect(md.indexOf(POSTGIS_HEADING)).toBeLessThan(md.indexOf('## Method'));
    expect(md).toMatch(/warm p50 ahead of PostGIS at every radius and size \| \*\*met\*\*/);
  });
});
