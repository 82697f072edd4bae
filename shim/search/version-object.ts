/**
 * The served version's published objects as stored, for the public audit route `/v/<current>/<path>`: each object is
 * read byte for byte and checked against the sha256 its parent records (the pointer for meta.json, meta.json or its
 * hashes/ documents for the documents read by name, the cell index for groups, a group for its shared list and blocks, a block for its record chunks,
 * a listings bucket for its firm packs). An object no parent records is not part of the version: null (a 404).
 * The manifest, which nothing records, is checked against meta.json and the pointer; a layered version's is the one it
 * would have had as a complete version (composeManifest).
 */
import { cellToParent, getResolution, isValidCell } from 'h3-js';
import { CellBlock, CellGroup, CellIndex } from '../format/cell-format.ts';
import { StoreError } from '../contract/errors.ts';
import { checkHash, recordsHashes } from '../format/integrity.ts';
import { composeManifest, layerResolver } from '../format/layers.ts';
import { readRequired, type SiteReader } from './reader.ts';
import { parseObject } from '../format/site-json.ts';
import { hashDocPath } from '../format/hash-docs.ts';
import { FIRST_RECORDS_IN_PACK_SCHEMA, packProblems } from '../format/pack-layout.ts';
import { paths } from '../format/paths.ts';
import {
  firmPackSha256,
  HashDoc,
  keys,
  LISTING_ALPHABET,
  ListingBucket,
  Manifest,
  type ManifestT,
} from '../format/site-format.ts';

/** A version-relative path an auditor may ask for: slash-separated segments of safe characters, ending in .json (.pb for a binary cell object). */
const REL_RE = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}\/){0,4}[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}\.(?:json|pb|bin)$/;
/** A group's pack of blocks (paths.cellPack). */
const PACK_RE = /^cells\/packs\/([0-9a-f]{15})\.bin$/;

/** What readVersionObject reads through: the served version and the store's bytes of any key, as stored. */
export interface VersionObjectSource {
  readonly reader: SiteReader;
  /** sha256 of the version's meta.json as the pointer records it (undefined for pointers written before it). */
  readonly metaSha256: string | undefined;
  /** The stored bytes at a full store key, or null when missing. */
  get(key: string): Promise<Uint8Array | null>;
}

/** The bytes of `rel` in the served version, checked against the hash recorded for it, or null when it holds no such object. */
export async function readVersionObject(src: VersionObjectSource, rel: string): Promise<Uint8Array | null> {
  const { reader } = src;
  if (!REL_RE.test(rel) || !recordsHashes(reader.meta)) return null;
  const key = `${keys.root(reader.version)}${rel}`;
  if (rel === 'manifest.json') return manifestBytes(src);
  if (rel === 'meta.json') return checkedRead(src, key, key, src.metaSha256);
  const pack = PACK_RE.exec(rel)?.[1];
  if (pack !== undefined) return packBytes(src, key, pack);
  const sha256 = await recordedHash(reader, rel);
  if (sha256 === null) return null;
  const stored = layerResolver(reader.version, reader.meta.layers)(key);
  if (stored === null)
    throw new StoreError(`${key} is recorded in version ${reader.version} but its layer map has no entry`, key);
  return checkedRead(src, key, stored, sha256);
}

/** Bytes at `stored` (for `key` of the version) checked against `sha256`; missing is a StoreError, since a parent records it. */
async function checkedRead(
  src: VersionObjectSource,
  key: string,
  stored: string,
  sha256: string | undefined,
): Promise<Uint8Array> {
  const bytes = await src.get(stored);
  if (bytes === null) throw new StoreError(`${key} is missing from the served version, which records its sha256`, key);
  checkHash(key, bytes, sha256);
  return bytes;
}

/**
 * A group's pack: nothing records its own sha256, so it is checked slice by slice, each against the sha256 the group
 * (or, for a record chunk, its block) records for that object, at the lengths the index gives (pack-layout.ts); null when the index gives the group none.
 */
async function packBytes(src: VersionObjectSource, key: string, group: string): Promise<Uint8Array | null> {
  const { reader } = src;
  const v = reader.version;
  const index = await reader.json(keys.cellIndex(v), CellIndex);
  const groupSha = index?.group_sha256[group];
  if (index === null || index.block_bytes?.[group] === undefined || groupSha === undefined) return null;
  const tree = await reader.json(keys.cellGroup(v, group, index.schema_version), CellGroup, groupSha);
  if (tree === null) return null;
  const stored = layerResolver(v, reader.meta.layers)(key);
  if (stored === null) throw new StoreError(`${key} is part of version ${v} but its layer map has no entry`, key);
  // From cell schema 9 the pack ends with its blocks' record chunks, which the blocks give the lengths and hashes of.
  const blocks =
    index.schema_version >= FIRST_RECORDS_IN_PACK_SCHEMA
      ? await Promise.all(
          (index.blocks[group] ?? []).map(([cell]) =>
            readRequired(
              reader,
              keys.cellBlock(v, cell),
              CellBlock,
              'is listed in its group but missing',
              tree.block_sha256[cell],
            ),
          ),
        )
      : [];
  const bytes = await src.get(stored);
  const [problem] = packProblems(key, bytes, index, tree, blocks);
  if (problem !== undefined || bytes === null) throw new StoreError(problem ?? `${key} is missing`, key);
  return bytes;
}

/** The sha256 a parent records for `rel` of the served version, or null when none does (not part of the version). */
async function recordedHash(reader: SiteReader, rel: string): Promise<string | null> {
  const v = reader.version;
  const fromMeta = reader.meta.sha256?.[rel];
  if (fromMeta !== undefined) return fromMeta;
  const doc = hashDocPath(rel);
  if (doc !== null && reader.meta.sha256?.[doc] !== undefined)
    return (await reader.json(keys.root(v) + doc, HashDoc))?.sha256[rel] ?? null;
  const parts = rel.slice(0, rel.lastIndexOf('.')).split('/');
  const [dir, name = '', sub] = parts;
  if (rel.endsWith('.pb') && !(dir === 'cells' && ['blocks', 'groups', 'shared'].includes(name))) return null;
  if (dir === 'firms' && parts.length === 2) {
    const length = reader.meta.listing_prefix_length;
    if (name.length !== length + 1 || [...name].some((c) => !LISTING_ALPHABET.includes(c))) return null;
    const bucket = await reader.json(keys.listings(v, name.slice(0, length)), ListingBucket);
    return (bucket === null ? undefined : firmPackSha256(bucket, name)) ?? null;
  }
  if (dir !== 'cells' || !isValidCell(sub ?? '')) return null;
  const cell = sub as string;
  const index = await reader.json(keys.cellIndex(v), CellIndex);
  if (index === null) return null;
  // Group trees and shared pages are named by the path of the index's cell schema only (.pb from 8, .json in 7).
  const sv = index.schema_version;
  if (name === 'groups' && parts.length === 3)
    return rel === paths.cellGroup(cell, sv) ? (index.group_sha256[cell] ?? null) : null;
  if (getResolution(cell) < index.group_res) return null;
  const groupCell = cellToParent(cell, index.group_res);
  const groupSha = index.group_sha256[groupCell];
  if (groupSha === undefined) return null;
  const group = await reader.json(keys.cellGroup(v, groupCell, sv), CellGroup, groupSha);
  if (group === null) return null;
  if (name === 'shared' && parts.length === 3)
    return rel === paths.cellShared(cell, sv) ? (group.shared_sha256[cell] ?? null) : null;
  const blockSha = group.block_sha256[cell];
  if (blockSha === undefined) return null;
  if (name === 'blocks' && parts.length === 3) return rel === paths.cellBlock(cell) ? blockSha : null;
  const chunk = parts[3];
  if (name !== 'records' || parts.length !== 4 || chunk === undefined || !/^(0|[1-9]\d{0,5})$/.test(chunk)) return null;
  const block = await reader.json(keys.cellBlock(v, cell), CellBlock, blockSha);
  return block?.records_sha256[Number(chunk)] ?? null;
}

/**
 * The manifest of the served version: as stored for a complete version, composed from its base's for a layered one.
 * Nothing records its hash, so it must name the version, list meta.json with the pointer's hash (as generated, for a
 * layer) and agree with every hash meta.json records; otherwise it is damaged (StoreError).
 */
async function manifestBytes(src: VersionObjectSource): Promise<Uint8Array> {
  const { reader } = src;
  const v = reader.version;
  const layers = reader.meta.layers;
  const from = layers === undefined ? v : layers.base;
  const key = keys.manifest(from);
  const bytes = await src.get(key);
  if (bytes === null) throw new StoreError(`${key} is missing: the served version ${v} needs it`, key);
  const stored = parseObject(bytes, key, Manifest);
  if (stored.version !== from) throw new StoreError(`${key} names version ${stored.version}, not ${from}`, key);
  const manifest: ManifestT = layers === undefined ? stored : composeManifest(v, layers, stored);
  const root = keys.root(v);
  const metaSha = layers === undefined ? src.metaSha256 : layers.generated_meta.sha256;
  const wrong = (rel: string, want: string | undefined): boolean =>
    want !== undefined && manifest.objects[root + rel]?.sha256 !== want;
  const disagrees = Object.entries(reader.meta.sha256 ?? {}).find(([rel, sha]) => wrong(rel, sha));
  if (wrong('meta.json', metaSha) || disagrees !== undefined)
    throw new StoreError(
      `${key} does not agree with ${disagrees === undefined ? 'the pointer' : 'meta.json'} on the sha256 of ${disagrees?.[0] ?? 'meta.json'}`,
      key,
    );
  return layers === undefined ? bytes : new TextEncoder().encode(`${JSON.stringify(manifest)}\n`);
}
