/**
 * A published site as the auditor reads it: a folder or an S3 bucket (through the shim's Store interface), one version,
 * and a listing of the objects actually present under that version (for "no unlisted object").
 */
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { paginateListObjectsV2 } from '@aws-sdk/client-s3';
import type { ZodType } from 'zod';
import { normalisePrefix, s3Client, type S3ClientOptions } from '../../shim/store/s3-client.ts';
import { layerResolver } from '../../shim/format/layers.ts';
import { keys, Manifest, Meta, Pointer, type MetaT } from '../../shim/format/site-format.ts';
import { HttpStore } from './http-store.ts';
import { AnyMeta, CURRENT_SCHEMA, otherSchemaMessage, type AnyMetaT } from './published-meta.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { StoreError, type ReadOptions, type Store } from '../../shim/store/types.ts';
import { checkStored } from '../../shim/contract/errors.ts';
import { parseObject as parseSiteObject } from '../../shim/format/site-json.ts';

/** Where a site lives: a folder, or a bucket (optionally under a prefix, optionally on a custom endpoint). */
export type SiteLocation = { kind: 'folder'; dir: string } | ({ kind: 's3'; bucket: string; prefix?: string } & S3ClientOptions);

/**
 * Where an auditor reads a site: a folder or bucket, or the public service over HTTP(S) (`url` its base), which
 * answers the served version's objects only, each as stored and checked, a layered version's already resolved.
 */
export type AuditLocation = SiteLocation | { kind: 'http'; url: string; onWait?: (seconds: number, status: number) => void };

/** One version of a published site, of any schema: its meta.json read only as far as every schema agrees. */
export interface StoredSite {
  /** Human-readable name of the location, e.g. "folder site/" or "s3://bucket/prefix/". */
  readonly label: string;
  /** Reads keys of the version (a layered version's through its map). */
  readonly store: Store;
  /** Reads stored keys as they are. */
  readonly raw: Store;
  readonly version: string;
  readonly meta: AnyMetaT;
  /** The parsed object at a full store key, or null when missing; throws StoreError when it is not valid JSON of `schema`. */
  json<T>(key: string, schema: ZodType<T>): Promise<T | null>;
  /**
   * Every key present under `v/<version>/` (full store keys, sorted; a layered version's own objects only). Over HTTP
   * nothing can be listed: the keys of the manifest the service serves (which answers no object without a recorded hash).
   */
  listVersionKeys(): Promise<string[]>;
  /** True when read over HTTP: keys are read as the service resolves them, and its manifest is the composed one. */
  readonly overHttp: boolean;
}

/** One version of a published site of the current schema, opened for auditing. */
export interface AuditSite extends Omit<StoredSite, 'meta'> {
  readonly meta: MetaT;
}

/** `bytes` as JSON of `schema`, or a StoreError naming the key (shim/format/site-json.ts, the one reader). */
export function parseObject<T>(bytes: Uint8Array, key: string, schema: ZodType<T>): T {
  return parseSiteObject(bytes, key, schema);
}

/** An already parsed value checked against a schema, or a StoreError naming `what` (a key, or a part of one). */
export function checkParsed<T>(value: unknown, what: string, schema: ZodType<T>): T {
  return checkStored(schema, value, what);
}

async function listFolder(root: string, under: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(join(root, under), { recursive: true, withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const e of entries) {
    if (!e.isFile() && !e.isSymbolicLink()) continue;
    out.push(relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
  }
  return out.sort();
}

async function listBucket(loc: Extract<SiteLocation, { kind: 's3' }>, under: string): Promise<string[]> {
  const { bucket, prefix, kind: _kind, ...clientOptions } = loc;
  const client = s3Client(clientOptions);
  const p = normalisePrefix(prefix);
  const out: string[] = [];
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: p + under })) for (const o of page.Contents ?? []) if (o.Key !== undefined) out.push(o.Key.slice(p.length));
  return out.sort();
}

/** Open one version of a site of the current schema: `version` when given, else the one current.json names. */
export async function openSite(loc: AuditLocation, version?: string): Promise<AuditSite> {
  const site = await openStoredVersion(loc, version);
  if (site.meta.schema_version !== CURRENT_SCHEMA) throw new StoreError(otherSchemaMessage(site.label, site.version, site.meta.schema_version), keys.meta(site.version));
  const meta = await site.json(keys.meta(site.version), Meta);
  if (meta === null) throw new StoreError(`${site.label} has no ${keys.meta(site.version)}: version ${site.version} is not published there`, keys.meta(site.version));
  return { ...site, meta };
}

/** Open one version of a site whatever its schema (`version` when given, else the one current.json names). */
export async function openStoredVersion(loc: AuditLocation, version?: string): Promise<StoredSite> {
  let store: Store;
  let label: string;
  if (loc.kind === 'folder') {
    store = new FolderStore(loc.dir);
    label = `folder ${loc.dir}`;
  } else if (loc.kind === 'http') {
    store = new HttpStore(loc.url, loc.onWait !== undefined ? { onWait: loc.onWait } : {});
    label = loc.url;
  } else {
    const { kind: _kind, ...options } = loc;
    store = new S3Store(options);
    label = `s3://${loc.bucket}/${normalisePrefix(loc.prefix)}`;
  }
  // Until the version's meta.json is read, keys are read as they are.
  let resolveKey = (key: string): string | null => key;
  const json = async <T>(key: string, schema: ZodType<T>): Promise<T | null> => {
    let bytes: Uint8Array | null;
    try {
      const at = resolveKey(key);
      bytes = at === null ? null : await store.get(at);
    } catch (err) {
      throw new StoreError(`${label}: ${(err as Error).message}`, key, { cause: err });
    }
    return bytes === null ? null : parseObject(bytes, key, schema);
  };
  let v = version;
  if (v === undefined) {
    const pointer = await json(keys.pointer, Pointer);
    if (pointer === null) throw new StoreError(`${label} has no ${keys.pointer}: not a published site (or give --version)`, keys.pointer);
    v = pointer.version;
  }
  const meta = await json(keys.meta(v), AnyMeta);
  if (meta === null) throw new StoreError(`${label} has no ${keys.meta(v)}: version ${v} is not published there`, keys.meta(v));
  if (meta.version !== v) throw new StoreError(`${keys.meta(v)} names version ${meta.version}, not ${v}`, keys.meta(v));
  const resolved = v;
  // The service resolves a layered version's keys itself and answers its objects under the version's own prefix.
  if (loc.kind !== 'http') resolveKey = layerResolver(v, meta.layers);
  // A layered version (published over another): every key of it is read where its map says.
  const raw = store;
  const versionStore: Store =
    meta.layers === undefined || loc.kind === 'http'
      ? raw
      : layeredStore(raw, resolveKey);
  return {
    label,
    store: versionStore,
    raw,
    version: resolved,
    meta,
    json,
    overHttp: loc.kind === 'http',
    listVersionKeys: async () => {
      if (loc.kind === 'folder') return listFolder(loc.dir, keys.root(resolved));
      if (loc.kind === 's3') return listBucket(loc, keys.root(resolved));
      const manifest = await json(keys.manifest(resolved), Manifest);
      return Object.keys(manifest?.objects ?? {}).sort();
    },
  };
}

/** `raw` read through a layered version's key map (`resolveKey`; null: no such key), ranges too when `raw` reads them. */
function layeredStore(raw: Store, resolveKey: (key: string) => string | null): Store {
  const { getRange } = raw;
  return {
    kind: raw.kind,
    get: (key) => {
      const at = resolveKey(key);
      return at === null ? Promise.resolve(null) : raw.get(at);
    },
    ...(getRange !== undefined
      ? {
          getRange: (key: string, start: number, end: number, options?: ReadOptions) => {
            const at = resolveKey(key);
            return at === null ? Promise.resolve(null) : getRange.call(raw, at, start, end, options);
          },
        }
      : {}),
  };
}
