/**
 * The hand-written checks of places.jsonl and flags.jsonl rows (generator/inputs/fast-check.ts) against zod, the
 * reference: every row of the sample is taken by the hand check and comes out exactly as zod returns it (same keys in
 * the same order), and on hundreds of broken and odd variants the hand check never takes a row zod refuses nor returns
 * anything but zod's value; reading a file of those variants gives the same rows and the same bad-row reasons with the
 * hand check as with zod alone.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ZodType } from 'zod';
import { checkFlag, checkPlace } from '../generator/inputs/fast-check.ts';
import { readJsonl } from '../generator/inputs/jsonl.ts';
import { FlagRecord, PlaceRecord } from '../generator/inputs/schema.ts';

const WEEK = 'data/weeks/2026-W47';

async function lines(file: string): Promise<unknown[]> {
  return (await readFile(join(WEEK, file), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** The hand check agrees with zod on `value`: unsure (undefined), or exactly zod's output. Returns whether it took it. */
function agrees<T>(value: unknown, fast: (json: unknown) => T | undefined, schema: ZodType<T>): boolean {
  const quick = fast(structuredClone(value));
  const zod = schema.safeParse(structuredClone(value));
  if (quick === undefined) return false;
  expect(zod.success, `hand check took a row zod refuses: ${JSON.stringify(value)}`).toBe(true);
  expect(quick).toStrictEqual(zod.data);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
  return true;
}

const BAD_VALUES: unknown[] = [null, undefined, 0, -1, 1.5, 91, -181, '', 'x', 'A'.repeat(257), true, [], {}];

function placeVariants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [null, [], 'x', 5, { ...base, extra: 1 }];
  for (const k of [...Object.keys(base), 'timezone']) {
    const { [k]: _dropped, ...without } = base;
    out.push(without);
    for (const v of BAD_VALUES) out.push({ ...base, [k]: v });
  }
  const websites = [
    'http://a.example/',
    'HTTP://A.EXAMPLE',
    'Https://a.example/x',
    ' https://x.example',
    'https://x.example ',
    'ftp://x.example',
    'http:x.example',
    'https:/x.example',
    'https://',
    'https://exa mple.com',
    'https://x.example/\tpath',
    'https://x.exa\nmple/',
    'https://[::1]/',
    'https://x.example:99999/',
    'https://x.example:8080/a?b#c',
    'mailto:a@b.c',
    'https://ü.example/',
    'https://x.example/%zz',
    'https://a..b/',
    'https://-.example/',
    'https://x.example\u00a0',
  ];
  for (const w of websites) out.push({ ...base, website: w });
  for (const s of ['ny', 'NYC', 'N1', 'NY ']) out.push({ ...base, state: s });
  for (const z of ['1234', '123456', '12345-6789', 12345, ' 12345']) out.push({ ...base, zip: z });
  for (const [lat, lng] of [
    [90, 180],
    [-90, -180],
    [90.0001, 0],
    [0, 180.0001],
    ['40', -70],
  ])
    out.push({ ...base, lat, lng });
  const t = (day: unknown, time: unknown): unknown => ({ day, time });
  const hours: unknown[] = [
    { periods: [] },
    { periods: [{ open: t(1, '0900') }] },
    { periods: [{ open: t(0, '0000'), close: t(6, '2359') }] },
    { periods: [{ open: t(7, '0900') }] },
    { periods: [{ open: t(-1, '0900') }] },
    { periods: [{ open: t(1.5, '0900') }] },
    { periods: [{ open: t('1', '0900') }] },
    { periods: [{ open: t(1, '2400') }] },
    { periods: [{ open: t(1, '0960') }] },
    { periods: [{ open: t(1, '900') }] },
    { periods: [{ open: t(1, '0900'), close: null }] },
    { periods: [{ open: t(1, '0900'), close: t(1, '1700'), note: 'x' }] },
    { periods: [{ open: { day: 1, time: '0900', tz: 'x' }, close: t(1, '1700') }] },
    { periods: [{ close: t(1, '1700') }] },
    { periods: [null] },
    { periods: 'x' },
    { periods: {} },
    {},
    { periods: [], extra: true },
  ];
  for (const h of hours) out.push({ ...base, opening_hours: h });
  for (const tz of ['America/Chicago', '', 'Not/AZone']) out.push({ ...base, timezone: tz });
  return out;
}

function flagVariants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [
    null,
    [],
    'x',
    { ...base, extra: 1 },
    { ...base, profile_type: 'Enhanced' },
    { ...base, profile_type: 'enhanced' },
  ];
  for (const k of Object.keys(base)) {
    const { [k]: _dropped, ...without } = base;
    out.push(without);
    for (const v of BAD_VALUES) out.push({ ...base, [k]: v });
  }
  return out;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Read `rows` written as a JSON-lines file with and without the hand check: the same rows and the same bad rows. */
async function sameFile<T>(rows: unknown[], schema: ZodType<T>, fast: (json: unknown) => T | undefined): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fast-check-'));
  dirs.push(dir);
  const file = join(dir, 'rows.jsonl');
  await writeFile(file, `${rows.map((r) => JSON.stringify(r) ?? '').join('\n')}\n`);
  const withHand = await readJsonl(file, schema, undefined, fast);
  const zodOnly = await readJsonl(file, schema);
  expect(withHand).toStrictEqual(zodOnly);
  expect(JSON.stringify(withHand)).toBe(JSON.stringify(zodOnly));
  expect(zodOnly?.bad.length).toBeGreaterThan(0);
}

describe('hand checks of input rows', () => {
  it('take every place of the sample week, exactly as zod returns it', async () => {
    const rows = await lines('places.jsonl');
    expect(rows.length).toBeGreaterThan(9000);
    for (const r of rows) expect(agrees(r, checkPlace, PlaceRecord), JSON.stringify(r)).toBe(true);
  });

  it('take every flag of the sample week, exactly as zod returns it', async () => {
    const rows = await lines('flags.jsonl');
    expect(rows.length).toBeGreaterThan(1000);
    for (const r of rows) expect(agrees(r, checkFlag, FlagRecord)).toBe(true);
  });

  it('never take a place zod refuses, on broken and odd variants of sample rows', async () => {
    const rows = (await lines('places.jsonl')) as Record<string, unknown>[];
    // Rows with and without a website, with and without hours, with and without a time zone.
    const bases = [
      rows.find((r) => r.website !== null),
      rows.find((r) => r.website === null),
      rows.find((r) => r.opening_hours === null),
      rows[0],
    ];
    const { timezone: _tz, ...noZone } = rows[0] as Record<string, unknown>;
    bases.push(noZone);
    let taken = 0;
    let variants = 0;
    const all: unknown[] = [];
    for (const base of bases) {
      for (const v of placeVariants(base as Record<string, unknown>)) {
        variants++;
        if (agrees(v, checkPlace, PlaceRecord)) taken++;
        all.push(v);
      }
    }
    expect(variants).toBeGreaterThan(500);
    // The hand check takes the plain valid variants too (else it would only ever defer to zod).
    expect(taken).toBeGreaterThan(100);
    await sameFile(all, PlaceRecord, checkPlace);
  });

  it('never take a flag zod refuses, on broken and odd variants', async () => {
    const rows = (await lines('flags.jsonl')) as Record<string, unknown>[];
    const all = flagVariants(rows[0] as Record<string, unknown>);
    for (const v of all) agrees(v, checkFlag, FlagRecord);
    await sameFile(all, FlagRecord, checkFlag);
  });
});
