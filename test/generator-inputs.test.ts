/**
 * Streaming JSON-lines reading: the same rows, bad rows and line numbers as reading the whole text and splitting it on
 * '\n', across 1 MiB read chunks (multi-byte characters, CR LF and line ends split between chunks), and the sharing of
 * equal parts of place records.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { placeInterner } from '../generator/inputs/intern.ts';
import { readJsonl } from '../generator/inputs/jsonl.ts';
import type { BadRow, Row } from '../generator/inputs/jsonl.ts';
import { PlaceRecord } from '../generator/inputs/schema.ts';
import type { PlaceRecordT } from '../generator/inputs/schema.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

const Item = z.object({ i: z.number().int(), s: z.string() });
type ItemT = z.infer<typeof Item>;

/** The reference: the whole file decoded at once, split on '\n', one trailing '\r' dropped, blank lines skipped. */
function wholeText(bytes: Buffer, file: string): { rows: Row<ItemT>[]; bad: BadRow[] } {
  const rows: Row<ItemT>[] = [];
  const bad: BadRow[] = [];
  bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((text, i) => {
      const raw = text.replace(/\r$/, '');
      if (raw.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        bad.push({ file, line: i + 1, reason: 'json' });
        return;
      }
      const parsed = Item.safeParse(json);
      if (parsed.success) rows.push({ line: i + 1, value: parsed.data });
      else bad.push({ file, line: i + 1, reason: 'schema' });
    });
  return { rows, bad };
}

const MIB = 1 << 20;
const line = (i: number, s: string): string => `${JSON.stringify({ i, s })}\n`;

/** ASCII lines filling `parts` up to exactly `bytes` bytes. */
function padTo(parts: Buffer[], bytes: number, next: () => number): void {
  let size = parts.reduce((total, b) => total + b.length, 0);
  while (bytes - size > 200) {
    const b = Buffer.from(line(next(), 'x'.repeat(150)));
    parts.push(b);
    size += b.length;
  }
  const head = `{"i":${next()},"s":"`;
  parts.push(Buffer.from(`${head}${'y'.repeat(bytes - size - head.length - 3)}"}\n`));
}

describe('readJsonl', () => {
  it('streams exactly what the whole text gives, across chunk boundaries', async () => {
    let n = 0;
    const next = (): number => n++;
    const parts: Buffer[] = [Buffer.from('\uFEFF'), Buffer.from(line(next(), 'first'))];
    // A 4-byte character straddling the first 1 MiB boundary, inside a line that spans it.
    padTo(parts, MIB - 30, next);
    const head = `{"i":${next()},"s":"`;
    parts.push(Buffer.from(`${head}${'a'.repeat(28 - head.length)}😀€ é"}\n`));
    // A line ending on the last byte of the second chunk, then CR LF split across the third boundary.
    padTo(parts, 2 * MIB, next);
    padTo(parts, 3 * MIB - 30, next);
    parts.push(Buffer.from(`{"i":${next()},"s":"crlf"}`.padEnd(29, ' ') + '\r\n'));
    // Blank and whitespace-only lines, bad JSON, a schema error, CR between tokens, invalid UTF-8, a truncated character.
    parts.push(Buffer.from('\n   \n\r\n{not json\n{"i":"x","s":""}\n{"i":1,\r"s":"cr"}\n'));
    parts.push(Buffer.concat([Buffer.from('{"i":7,"s":"bad '), Buffer.from([0xff]), Buffer.from(' byte"}\n')]));
    parts.push(Buffer.concat([Buffer.from('{"i":8,"s":"cut'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n')]));
    // No trailing newline.
    parts.push(Buffer.from(`{"i":${next()},"s":"last"}`));
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBeGreaterThan(3 * MIB);
    expect(bytes.subarray(MIB - 2, MIB + 2).toString('utf8')).toBe('😀');
    expect(bytes.subarray(2 * MIB - 1, 2 * MIB)[0]).toBe(0x0a);
    expect(bytes.subarray(3 * MIB - 1, 3 * MIB + 1).toString('latin1')).toBe('\r\n');

    const file = join(await tempDir('jsonl'), 'items.jsonl');
    await writeFile(file, bytes);
    const got = await readJsonl(file, Item);
    const want = wholeText(await readFile(file), file);
    expect(got?.rows).toEqual(want.rows);
    expect(got?.bad.map((b) => b.line)).toEqual(want.bad.map((b) => b.line));
    expect(want.rows.length).toBeGreaterThan(18000);
    expect(want.rows.some((r) => r.value.s.includes('😀€ é'))).toBe(true);
    expect(want.rows.some((r) => r.value.s === 'bad \uFFFD byte')).toBe(true);
    expect(want.bad.length).toBe(2);
    expect(got?.bad.find((b) => b.reason.startsWith('not valid JSON'))).toBeDefined();
  });

  it('a missing file is null; an empty file has no rows', async () => {
    const dir = await tempDir('jsonl');
    expect(await readJsonl(join(dir, 'absent.jsonl'), Item)).toBeNull();
    await writeFile(join(dir, 'empty.jsonl'), '');
    expect(await readJsonl(join(dir, 'empty.jsonl'), Item)).toEqual({ rows: [], bad: [] });
  });
});

describe('placeInterner', () => {
  it('equal opening hours become one object; every value stays equal', () => {
    const hours = { periods: [{ open: { day: 1, time: '0900' }, close: { day: 1, time: '1700' } }] };
    const place = (id: string): PlaceRecordT =>
      PlaceRecord.parse({
        place_id: id,
        name: `Office ${id}`,
        street_address: '1 Main St',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        lat: 39.8,
        lng: -89.6,
        phone: null,
        website: null,
        primary_category: 'Law firm',
        claimed: true,
        opening_hours: structuredClone(hours),
        timezone: 'America/Chicago',
      });
    const intern = placeInterner();
    const a = intern(place('a'));
    const b = intern(place('b'));
    expect(a.opening_hours).toBe(b.opening_hours);
    expect(b).toEqual(place('b'));
    expect(b.opening_hours).toEqual(hours);
  });
});
