/**
 * Reading one published object: bytes, checked against the sha256 its parent records when there is one, decoded as
 * UTF-8 JSON (a binary cell object by its decoder) and checked against its zod schema. Every failure is a StoreError
 * naming the key (a 503 in the shim, one line from a command). The one implementation: the shim's site reader, the
 * generator (the live version a new one is compared with, publish, prune, a stored version's manifest) and the audit
 * all read the site through it.
 */
import type { ZodType } from 'zod';
import { checkStored, StoreError } from '../contract/errors.ts';
import { checkHash } from './integrity.ts';
import { decodeBlock } from './block-binary.ts';
import { decodeGroup } from './group-binary.ts';
import { decodeShared } from './shared-binary.ts';
import { binaryCellKind, type BinaryCellKind } from './paths.ts';

/** The decoder of each kind of binary cell object, and what its message is called in a store error. */
const BINARY: Record<BinaryCellKind, { decode: (bytes: Uint8Array) => unknown; what: string }> = {
  block: { decode: decodeBlock, what: 'a cell block message' },
  group: { decode: decodeGroup, what: 'a cell group message' },
  shared: { decode: decodeShared, what: 'a cell shared page message' },
};

/** What published objects are read from: a store's `get` (a missing key is null; a failure rejects). */
export interface ObjectSource {
  get(key: string): Promise<Uint8Array | null>;
  /** Bytes `start` to `end - 1` of an object as stored (Store.getRange); absent where the store cannot. */
  getRange?(key: string, start: number, end: number): Promise<Uint8Array | null>;
}

/** Decoders of the schemas whose objects are read from their stored bytes otherwise than parsed whole (storedForm). */
const decoders = new WeakMap<ZodType, (bytes: Uint8Array, key: string) => unknown>();

/**
 * `schema`, marked so that parseStored reads its objects from their stored bytes with `decode` (which checks them as
 * `schema` would, and throws a StoreError naming the key otherwise); a reader holding parsed objects still uses `schema`.
 */
export function storedForm<T>(schema: ZodType<T>, decode: (bytes: Uint8Array, key: string) => T): ZodType<T> {
  decoders.set(schema, decode);
  return schema;
}

/** `bytes` of `key` as an object of `schema`: by the decoder storedForm gave it, else parsed as JSON and checked. */
export function parseStored<T>(bytes: Uint8Array, key: string, schema: ZodType<T>): T {
  const decode = decoders.get(schema);
  return decode === undefined ? parseObject(bytes, key, schema) : (decode(bytes, key) as T);
}

/** `bytes` decoded as UTF-8 JSON, or a StoreError for `key` (invalid UTF-8 or not JSON). */
export function parseJson(bytes: Uint8Array, key: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch (err) {
    throw new StoreError(`${key} is not valid UTF-8 JSON: ${(err as Error).message}`, key, { cause: err });
  }
}

/** The value stored at `key`: a binary cell object decoded (paths.ts binaryCellKind), any other parsed as JSON; or a StoreError. */
export function decodeStored(bytes: Uint8Array, key: string): unknown {
  const kind = binaryCellKind(key);
  if (kind === null) return parseJson(bytes, key);
  const { decode, what } = BINARY[kind];
  try {
    return decode(bytes);
  } catch (err) {
    throw new StoreError(`${key} is not ${what}: ${(err as Error).message}`, key, { cause: err });
  }
}

/** `bytes` as JSON of `schema`, or a StoreError for `key`; `subject` names the key, or what in it is checked, in the message. */
export function parseObject<T>(bytes: Uint8Array, key: string, schema: ZodType<T>, subject = key): T {
  return checkStored(schema, decodeStored(bytes, key), key, subject);
}

/** The object at `key` (decodeStored) and its stored size, or null when missing; its bytes checked against `sha256` if given. */
export async function readJson(
  source: ObjectSource,
  key: string,
  sha256?: string,
): Promise<{ value: unknown; bytes: number } | null> {
  const bytes = await source.get(key);
  if (bytes === null) return null;
  checkHash(key, bytes, sha256);
  return { value: decodeStored(bytes, key), bytes: bytes.byteLength };
}

/** The object at `key` checked against `schema` (and `sha256` when given), or null when missing. */
export async function readObject<T>(
  source: ObjectSource,
  key: string,
  schema: ZodType<T>,
  sha256?: string,
): Promise<T | null> {
  const read = await readJson(source, key, sha256);
  return read === null ? null : checkStored(schema, read.value, key);
}
