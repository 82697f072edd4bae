/**
 * Record chunks held as their bytes (shim/format/record-chunk.ts): the records found in the bytes are the records
 * JSON.parse finds, on every chunk of the test site and on hand-made text with the JSON a scan could mistake; what
 * CellRecordsShown refuses is refused; and the site reader charges the records a search parses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { StoreError } from '../shim/contract/errors.ts';
import { CellRecordChunk, RecordChunk } from '../shim/format/record-chunk.ts';
import { keys } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { minimalMeta } from './helpers/minimal-meta.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const same = (o: object): object => o;

/** Every record of `chunk` as the chunk gives it, unchecked. */
function records(chunk: RecordChunk): object[] {
  return Array.from({ length: chunk.length }, (_, i) => chunk.record(i, 'k', same) as object);
}

function chunkText(offices: unknown[], extra = ''): string {
  return `{"schema_version":${SCHEMA_VERSIONS.cells},"block":"8a2a1072b59ffff","chunk":3,${extra}"offices":${JSON.stringify(offices)},"unit_offices":${JSON.stringify(offices.map(() => 2))}}`;
}

describe('RecordChunk.ofBytes', () => {
  it('finds the records JSON.parse finds, on every record chunk of the test site', () => {
    const site = process.env.TEST_SITE_DIR as string;
    const [version = ''] = readdirSync(join(site, 'v'));
    const root = join(site, 'v', version, 'cells', 'records');
    let chunks = 0;
    for (const block of readdirSync(root)) {
      for (const file of readdirSync(join(root, block))) {
        const bytes = new Uint8Array(readFileSync(join(root, block, file)));
        const whole = JSON.parse(new TextDecoder().decode(bytes)) as {
          block: string;
          chunk: number;
          offices: object[];
          unit_offices: number[];
        };
        const chunk = RecordChunk.ofBytes('k', bytes);
        expect({ block: chunk.block, chunk: chunk.chunk, unit: chunk.unitOffices, offices: records(chunk) }).toEqual({
          block: whole.block,
          chunk: whole.chunk,
          unit: whole.unit_offices,
          offices: whole.offices,
        });
        expect(chunk.record(chunk.length, 'k', same)).toBeUndefined();
        chunks++;
      }
    }
    expect(chunks).toBeGreaterThan(10);
  });

  it('is not misled by strings holding quotes, escapes, brackets or the key, by spacing or by key order', () => {
    const offices = [
      { name: 'A "quoted" {firm} [x]', note: 'back\\slash\\', n: 1 },
      { name: '\\"', offices: [{ a: '}' }], deep: { k: [1, [2, { x: '"offices":[' }]] } },
      { name: 'Zoë — ünïcödé 🏛', hours: { weekly: { mon: [] } } },
      {},
    ];
    const texts = [
      chunkText(offices),
      chunkText(offices, '"x":{"offices":[1,2]},"y":"\\"offices\\":[",'),
      JSON.stringify(JSON.parse(chunkText(offices)), null, 2),
      `{"offices":${JSON.stringify(offices)},"unit_offices":[2,2,2,2],"chunk":3,"block":"b","schema_version":${SCHEMA_VERSIONS.cells}}`,
    ];
    for (const text of texts) expect(records(RecordChunk.ofBytes('k', utf8(text)))).toEqual(offices);
  });

  it('keeps the last of a repeated offices key, as JSON.parse does', () => {
    const text = chunkText([{ a: 1 }]).replace('"offices":', '"offices":[{"first":true},{"first":true}],"offices":');
    expect(records(RecordChunk.ofBytes('k', utf8(text)))).toEqual([{ a: 1 }]);
  });

  it('refuses what CellRecordsShown refuses, as a StoreError naming the key', () => {
    const bad = [
      chunkText([{ a: 1 }, 2]),
      chunkText([[1]]),
      chunkText([null]),
      chunkText(['x']),
      chunkText([{ a: 1 }]).replace(`"schema_version":${SCHEMA_VERSIONS.cells}`, '"schema_version":0'),
      chunkText([{ a: 1 }]).replace('"unit_offices":[2]', '"unit_offices":[-1]'),
      chunkText([{ a: 1 }]).replace('"offices":', '"records":'),
      chunkText([{ a: 1 }]).slice(0, -1),
      chunkText([{ a: 1 }]).replace('{"a":1}', '{"a":1}}'),
      `${chunkText([{ a: 1 }])}x`,
      '',
    ];
    for (const text of bad) {
      expect(() => RecordChunk.ofBytes('v/x/cells/records/b/3.json', utf8(text)), text).toThrow(StoreError);
      expect(() => RecordChunk.ofBytes('v/x/cells/records/b/3.json', utf8(text)), text).toThrow(
        'v/x/cells/records/b/3.json',
      );
    }
  });

  it('refuses a record that is not JSON when it is shown, and serves the others', () => {
    const text = chunkText([{ a: 1 }, { b: 2 }]).replace('{"b":2}', '{"b":}');
    const chunk = RecordChunk.ofBytes('k', utf8(text));
    expect(chunk.record(0, 'k', same)).toEqual({ a: 1 });
    expect(() => chunk.record(1, 'k', same)).toThrow(StoreError);
  });

  it('parses and checks each record once, and holds only its own bytes', () => {
    const text = chunkText([{ a: 1 }, { b: 2 }]);
    const within = new Uint8Array(4096);
    within.set(utf8(text), 100);
    const chunk = RecordChunk.ofBytes('k', within.subarray(100, 100 + utf8(text).length));
    const before = chunk.heldBytes(3, 0);
    expect(before).toBeLessThan(400);
    let checks = 0;
    const check = (o: object): object => (checks++, { ...o, checked: true });
    expect(chunk.record(1, 'k', check)).toEqual({ b: 2, checked: true });
    expect(chunk.record(1, 'k', check)).toBe(chunk.record(1, 'k', check));
    expect(checks).toBe(1);
    expect(chunk.heldBytes(3, 0)).toBe(before + 3 * '{"b":2}'.length);
  });
});

describe('the site reader and record chunks', () => {
  it('reads a chunk as a RecordChunk, and charges the records a search parses', async () => {
    const store = new MemoryStore();
    const version = 'a';
    const offices = Array.from({ length: 64 }, (_, i) => ({ i, name: `Firm ${i}`, text: 'x'.repeat(500) }));
    const key = `v/${version}/cells/records/b/0.json`;
    store.set(keys.meta(version), JSON.stringify(minimalMeta(version)));
    store.set(key, chunkText(offices));
    store.set(keys.pointer, JSON.stringify({ schema_version: 1, version, week: '2026-W47' }));
    const source = createSiteSource(store, { cacheBytes: 1024 * 1024 });
    const reader = await source.current();
    const chunk = await reader.json(key, CellRecordChunk);
    expect(chunk).toBeInstanceOf(RecordChunk);
    const charged = source.stats().cachedBytes;
    // Its bytes, not three times them as a parsed object.
    expect(charged).toBeLessThan(1.2 * chunkText(offices).length);
    chunk?.record(5, key, same);
    expect(source.stats().cachedBytes).toBeGreaterThan(charged + 3 * 500);
    expect(await reader.json(key, CellRecordChunk)).toBe(chunk);
  });
});
