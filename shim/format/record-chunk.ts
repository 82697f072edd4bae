/**
 * A record chunk (`cells/records/<block cell>/<chunk>.json`) as the search holds it: its stored bytes, where each record
 * lies in them, and each record parsed only the first time it is shown. A search shows a few records of each chunk it
 * reads (at most 25 of its 32); parsing the other records and keeping them in the parsed-object cache made every chunk read
 * leave about 2,000 small objects that each young-generation collection copied (BENCHMARKS.md section 14, the warm
 * 1 mi tail). The bytes are held outside the JavaScript heap, so the collector never copies them.
 */
import type { z } from 'zod';
import { checkStored, StoreError } from '../contract/errors.ts';
import { CellRecordsShown } from './cell-format.ts';
import { parseJson, storedForm } from './site-json.ts';

/** One chunk's records, each parsed and checked on first use; its unit office counts. */
export class RecordChunk {
  readonly block: string;
  readonly chunk: number;
  /** How many offices each record's unit has in the version, by position in the chunk. */
  readonly unitOffices: readonly number[];
  private readonly bytes: Uint8Array | null;
  /** Byte offsets of record i's JSON text at [2i, 2i+1) in `bytes` (null when the records came parsed). */
  private readonly spans: Int32Array | null;
  private readonly raw: readonly object[] | null;
  private readonly checked: unknown[];
  private parsed = 0;
  private grown: (() => void) | null = null;

  private constructor(
    envelope: { block: string; chunk: number; unit_offices: number[] },
    records: { bytes: Uint8Array; spans: Int32Array } | { raw: readonly object[] },
  ) {
    this.block = envelope.block;
    this.chunk = envelope.chunk;
    this.unitOffices = envelope.unit_offices;
    this.bytes = 'bytes' in records ? records.bytes : null;
    this.spans = 'spans' in records ? records.spans : null;
    this.raw = 'raw' in records ? records.raw : null;
    this.checked = [];
  }

  /** A chunk parsed whole (a reader holding parsed objects, or stored bytes whose records the scan did not find). */
  static ofParsed(value: z.output<typeof CellRecordsShown>): RecordChunk {
    return new RecordChunk(value, { raw: value.offices });
  }

  /**
   * The chunk stored at `key` as `bytes` (already checked against their hash): everything but the records parsed and
   * checked with CellRecordsShown now, each record only found as a span of the bytes. A StoreError when the bytes are
   * not such a chunk.
   */
  static ofBytes(key: string, bytes: Uint8Array): RecordChunk {
    const found = recordSpans(bytes, key);
    const open = scannedOpen;
    const close = scannedClose;
    // Not found or unbalanced: parsed whole, which reports what is wrong.
    if (found === null || scannedDepth !== 0 || open < 0 || close < 0)
      return RecordChunk.ofParsed(checkStored(CellRecordsShown, parseJson(bytes, key), key));
    const spans = Int32Array.from(found);
    // The chunk with an empty records array: `[` at `open`, then the bytes from the array's `]` on.
    const rest = new Uint8Array(open + 1 + bytes.length - close);
    rest.set(bytes.subarray(0, open + 1));
    rest.set(bytes.subarray(close), open + 1);
    const envelope = checkStored(CellRecordsShown, parseJson(rest, key), key);
    // Held as its own buffer: a view into a larger one would keep all of it alive under a charge of this part.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return new RecordChunk(envelope, { bytes: own, spans });
  }

  /** Records in the chunk. */
  get length(): number {
    return this.raw?.length ?? (this.spans?.length ?? 0) / 2;
  }

  /**
   * Record `i` as `check` returns it from the record's parsed JSON, kept for the next call (every call must pass the
   * same check); undefined past the end. A record whose text is not a JSON object is a StoreError.
   */
  record<T>(i: number, key: string, check: (record: object) => T): T | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) return undefined;
    const kept = this.checked[i];
    if (kept !== undefined) return kept as T;
    const at = this.spans?.[2 * i] ?? 0;
    const end = this.spans?.[2 * i + 1] ?? 0;
    const record: unknown = this.bytes === null ? this.raw?.[i] : parseJson(this.bytes.subarray(at, end), key);
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw new StoreError(`${key} holds a record that is not an object`, key);
    const value = check(record);
    this.checked[i] = value;
    this.parsed += end - at;
    this.grown?.();
    return value;
  }

  /** Calls `listener` after each record is parsed (the holder of the chunk charges what it holds again); one at a time. */
  onGrow(listener: () => void): void {
    this.grown = listener;
  }

  /**
   * Memory the chunk holds, given what a parsed record takes per stored byte: its bytes and spans, its unit office
   * counts, and the records parsed so far (all of them when it came parsed).
   */
  heldBytes(parsedPerStoredByte: number, storedBytes: number): number {
    if (this.bytes === null) return Math.ceil(storedBytes * parsedPerStoredByte);
    return (
      this.bytes.byteLength +
      8 * this.length +
      8 * this.unitOffices.length +
      Math.ceil(this.parsed * parsedPerStoredByte)
    );
  }
}

/**
 * How the search reads a record chunk: CellRecordsShown (the chunk checked whole except its records), held as a
 * RecordChunk. A reader parsing stored bytes finds the records in them without parsing them (RecordChunk.ofBytes).
 */
export const CellRecordChunk = storedForm(
  CellRecordsShown.transform((value) => RecordChunk.ofParsed(value)),
  (bytes, key) => RecordChunk.ofBytes(key, bytes),
);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const OFFICES = Uint8Array.from('offices', (c) => c.charCodeAt(0));

/** True for the JSON whitespace bytes. */
function space(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// What the last recordSpans call found besides the spans (see there): variables, whose stores need no type feedback.
let scannedOpen = -1;
let scannedClose = -1;
let scannedDepth = 0;

/**
 * The span of each element of the top-level `offices` array of a chunk's JSON, each of which must be an object; null
 * when a string does not end. Where that array opens and closes (the offsets of its `[` and `]`, -1 when not found)
 * and the nesting depth at the end (0 for balanced text) are left in the variables above for the caller to judge.
 * Only the structure is scanned: the text of each record is parsed when it is shown. Nothing after the loop needs
 * type feedback: the loop runs optimised from the first call (on-stack replacement), and code after it that the first
 * call had not reached (a comparison, an object literal) deoptimised every later call at its end.
 */
function recordSpans(bytes: Uint8Array, key: string): number[] | null {
  const n = bytes.length;
  let depth = 0;
  // The last string seen at depth 1: the key of a value opened there.
  let keyAt = -1;
  let keyEnd = -1;
  let open = -1;
  let close = -1;
  let spans: number[] = [];
  let inOffices = false;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = bytes[i] as number;
    if (c === QUOTE) {
      if (inOffices && depth === 2) throw new StoreError(`${key} holds a record that is not an object`, key);
      let j = bytes.indexOf(QUOTE, i + 1);
      for (;;) {
        if (j < 0) return null;
        let slashes = 0;
        while (bytes[j - 1 - slashes] === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        j = bytes.indexOf(QUOTE, j + 1);
      }
      if (depth === 1) {
        keyAt = i + 1;
        keyEnd = j;
      }
      i = j;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (inOffices && depth === 2) {
        if (c !== OPEN_OBJECT) throw new StoreError(`${key} holds a record that is not an object`, key);
        start = i;
      } else if (depth === 1 && c === OPEN_ARRAY && isOffices(bytes, keyAt, keyEnd)) {
        // A repeated key: JSON.parse keeps the last, and so does this.
        inOffices = true;
        open = i;
        spans = [];
      }
      depth++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth < 0) return null;
      if (inOffices && depth === 2) {
        spans.push(start, i + 1);
        start = -1;
      } else if (inOffices && depth === 1) {
        inOffices = false;
        close = i;
      }
    } else if (inOffices && depth === 2 && c !== COMMA && !space(c)) {
      throw new StoreError(`${key} holds a record that is not an object`, key);
    }
  }
  scannedOpen = open;
  scannedClose = close;
  scannedDepth = depth;
  return spans;
}

function isOffices(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at !== OFFICES.length) return false;
  for (let k = 0; k < OFFICES.length; k++) if (bytes[at + k] !== OFFICES[k]) return false;
  return true;
}
