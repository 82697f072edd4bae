/**
 * Atomic publish of a generated site folder to S3 (docs/DEPLOY.md): the version's objects under
 * `<prefix>v/<version>/`, then its manifest, then the pointer `<prefix>current.json` LAST, so a publish
 * that stops halfway leaves the previous version serving. Objects whose sha256 the bucket already has
 * are copied server-side (from the serving version) or skipped (already under the target version).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import {
  CopyObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { normalisePrefix, s3Client, type S3ClientOptions } from '../shim/aws/s3-client.ts';
import { keys, Manifest, Meta, Pointer, type ManifestT, type PointerT } from '../shim/core/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { assertSafeKey } from '../shim/store/types.ts';
import { pointerDoc } from './documents.ts';
import { removedListingsIn } from './release/removal-check.ts';
import type { ActiveRemovals } from './removals.ts';
import { serialise, sha256Hex } from './json.ts';
import { runPool } from './pool.ts';

const gzipAsync = promisify(gzip);

/** Cache-Control of everything under v/<version>/: a version's objects never change once published. */
export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control of the pointer: always revalidate, so a new version is seen at once. */
export const CACHE_POINTER = 'no-cache';
/** Above this many changed listings, invalidate /v1/firms/* and /r/* instead of each path. */
export const MAX_LISTING_INVALIDATIONS = 100;

/** The version to publish holds a listing under a standing removal. */
export class RemovedListingError extends Error {
  override name = 'RemovedListingError';
}

/** Options of one publish. */
export interface PublishOptions extends S3ClientOptions {
  bucket: string;
  /** Generated site folder holding current.json and v/<version>/ (default "site"). */
  siteDir?: string;
  /** Key prefix in the bucket, e.g. "prod/" (default: bucket root). */
  prefix?: string;
  /** Version folder to publish (default: the one <siteDir>/current.json names). */
  version?: string;
  /** Standing removals: a version holding a listing they name is refused before anything is written. */
  removals?: ActiveRemovals;
  /** CloudFront distribution to invalidate once the pointer is written. */
  distributionId?: string;
  /** Plan and print, write nothing. */
  dryRun?: boolean;
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Gzip objects larger than gzipMinBytes when that saves at least 10% (default true). */
  gzip?: boolean;
  /** Default 1024. */
  gzipMinBytes?: number;
  /** Called after each object is settled (and before the manifest and pointer); a throw aborts the publish. */
  onObject?: (event: ObjectEvent) => void | Promise<void>;
  /** Progress lines (default: stderr); `quiet` silences them. */
  log?: (line: string) => void;
  quiet?: boolean;
  /** Explicit clients (otherwise memoised ones built from the options). */
  client?: S3Client;
  cloudFront?: CloudFrontClient;
}

/** One object settled during publish. */
export interface ObjectEvent {
  action: 'upload' | 'copy' | 'skip';
  /** Key relative to the bucket prefix. */
  key: string;
  done: number;
  total: number;
}

/** What a publish did (or, with dryRun, would do). */
export interface PublishReport {
  version: string;
  previousVersion: string | null;
  dryRun: boolean;
  /** Objects listed in the manifest (the manifest itself and the pointer not counted). */
  objects: number;
  uploaded: number;
  copied: number;
  skipped: number;
  manifestWritten: boolean;
  pointerWritten: boolean;
  /** Bytes of the uploaded objects (manifest and pointer included when written), before and after gzip (a dry run: before only). */
  uploadedRawBytes: number;
  uploadedSentBytes: number;
  /** Objects stored with Content-Encoding gzip among the uploaded ones. */
  gzipped: number;
  /** CloudFront paths that serve something that changed (empty when the pointer did not move). */
  invalidationPaths: string[];
  invalidationId: string | null;
  /** Set when the pointer moved but CreateInvalidation failed (invalidate invalidationPaths by hand). */
  invalidationError: string | null;
  ms: number;
}

type Action = { key: string; rel: string; sha256: string; bytes: number } & ({ kind: 'upload' } | { kind: 'copy'; from: string } | { kind: 'skip' });

/** Publish the site folder's current version to the bucket; resolves once the pointer is written (and invalidation requested). */
export async function publishSite(opts: PublishOptions): Promise<PublishReport> {
  const t0 = performance.now();
  const log = opts.quiet ? () => undefined : (opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`)));
  const say = (msg: string): void => log(`publish [${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
  const siteDir = opts.siteDir ?? 'site';
  const prefix = normalisePrefix(opts.prefix);
  const concurrency = opts.concurrency ?? 16;
  const client =
    opts.client ??
    s3Client({ connectionTimeoutMs: 3000, requestTimeoutMs: 30_000, socketTimeoutMs: 30_000, maxSockets: concurrency, ...clientOptionsOf(opts) });
  const remote = new S3Store({ bucket: opts.bucket, prefix, client });

  // Local state: pointer and manifest of the version to publish.
  const pointerBytes = opts.version === undefined ? await readFile(join(siteDir, keys.pointer)) : await pointerFor(siteDir, opts.version);
  const pointer = Pointer.parse(JSON.parse(pointerBytes.toString('utf8')));
  const version = pointer.version;
  const root = keys.root(version);
  const manifestBytes = await readFile(join(siteDir, keys.manifest(version)));
  const manifest = Manifest.parse(JSON.parse(manifestBytes.toString('utf8')));
  if (manifest.version !== version) throw new Error(`manifest names version ${manifest.version}, pointer names ${version}`);
  for (const key of Object.keys(manifest.objects)) {
    assertSafeKey(key);
    if (!key.startsWith(root)) throw new Error(`manifest key ${key} is outside ${root}`);
  }
  say(`site ${siteDir}: version ${version}, ${Object.keys(manifest.objects).length} objects -> s3://${opts.bucket}/${prefix}`);
  if (opts.removals !== undefined && opts.removals.count > 0) {
    const held = await removedListingsIn(siteDir, version, opts.removals);
    if (held.length > 0) {
      throw new RemovedListingError(`version ${version} contains ${held.length} listing(s) under a standing removal, refused (regenerate it with the removals applied): ${held.slice(0, 5).join('; ')}`);
    }
    say(`no listing under the ${opts.removals.count} standing removal(s)`);
  }

  // Remote state: the serving pointer and manifest, and the target version's manifest if it exists.
  const remotePointerBytes = await remote.get(keys.pointer);
  const remotePointer: PointerT | null = remotePointerBytes ? Pointer.parse(parseJson(remotePointerBytes, keys.pointer)) : null;
  const previousVersion = remotePointer?.version ?? null;
  const previous = previousVersion ? await readManifest(remote, previousVersion) : null;
  if (previousVersion && !previous) throw new Error(`the bucket's pointer names ${previousVersion} but its manifest is missing`);
  const target = previousVersion === version ? previous : await readManifest(remote, version);
  if (target) {
    const diff = manifestDiff(target, manifest);
    if (diff) throw new Error(`version ${version} is already in the bucket with different content (${diff}); published versions are immutable`);
  }
  say(previousVersion ? `bucket serves ${previousVersion}` : 'bucket serves nothing yet');

  // Plan every object: skip (already under the target), copy (unchanged since the serving version), or upload.
  const present = target ? null : await presentUnder(client, opts.bucket, prefix, root, concurrency);
  const actions: Action[] = [];
  for (const [key, entry] of Object.entries(manifest.objects)) {
    const rel = key.slice(root.length);
    const base = { key, rel, sha256: entry.sha256, bytes: entry.bytes };
    const old = previousVersion && previous ? previous.objects[keys.root(previousVersion) + rel] : undefined;
    if (target || present?.get(key) === entry.sha256) actions.push({ ...base, kind: 'skip' });
    else if (old && old.sha256 === entry.sha256 && previousVersion !== version) actions.push({ ...base, kind: 'copy', from: keys.root(previousVersion!) + rel });
    else actions.push({ ...base, kind: 'upload' });
  }
  const count = (kind: Action['kind']): number => actions.filter((a) => a.kind === kind).length;
  const pointerChanges = !remotePointerBytes || !Buffer.from(remotePointerBytes).equals(pointerBytes);
  const invalidationPaths = pointerChanges ? invalidationPathsFor(previous, previousVersion, manifest, version) : [];
  say(`plan: upload ${count('upload')}, copy ${count('copy')}, skip ${count('skip')}; manifest ${target ? 'present' : 'to write'}; pointer ${pointerChanges ? 'to write' : 'unchanged'}`);

  const report: PublishReport = {
    version,
    previousVersion,
    dryRun: opts.dryRun ?? false,
    objects: actions.length,
    uploaded: 0,
    copied: 0,
    skipped: 0,
    manifestWritten: false,
    pointerWritten: false,
    uploadedRawBytes: 0,
    uploadedSentBytes: 0,
    gzipped: 0,
    invalidationPaths,
    invalidationId: null,
    invalidationError: null,
    ms: 0,
  };
  if (opts.dryRun) {
    report.uploaded = count('upload');
    report.copied = count('copy');
    report.skipped = count('skip');
    report.uploadedRawBytes =
      actions.filter((a) => a.kind === 'upload').reduce((s, a) => s + a.bytes, 0) + (target ? 0 : manifestBytes.length) + (pointerChanges ? pointerBytes.length : 0);
    report.ms = performance.now() - t0;
    say('dry run: nothing written');
    return report;
  }

  const gzipOn = opts.gzip ?? true;
  const gzipMin = opts.gzipMinBytes ?? 1024;
  const put = async (key: string, body: Buffer, sha256: string, cacheControl: string): Promise<void> => {
    let sent = body;
    let encoding: string | undefined;
    if (gzipOn && body.length > gzipMin) {
      const packed = await gzipAsync(body, { level: 6 });
      if (packed.length <= body.length * 0.9) {
        sent = packed;
        encoding = 'gzip';
      }
    }
    await client.send(
      new PutObjectCommand({
        Bucket: opts.bucket,
        Key: prefix + key,
        Body: sent,
        ContentType: contentTypeOf(key),
        CacheControl: cacheControl,
        ...(encoding ? { ContentEncoding: encoding } : {}),
        ContentMD5: createHash('md5').update(sent).digest('base64'),
        Metadata: { sha256 },
      }),
    );
    report.uploadedRawBytes += body.length;
    report.uploadedSentBytes += sent.length;
    if (encoding) report.gzipped += 1;
  };

  let done = 0;
  let lastLine = performance.now();
  await runPool(actions, concurrency, async (a) => {
    if (a.kind === 'upload') {
      const body = await readFile(join(siteDir, a.key));
      const sha = sha256Hex(body);
      if (sha !== a.sha256 || body.length !== a.bytes) throw new Error(`${a.key} on disk does not match the manifest (sha256 ${sha}, ${body.length} bytes)`);
      await put(a.key, body, a.sha256, CACHE_IMMUTABLE);
      report.uploaded += 1;
    } else if (a.kind === 'copy') {
      await client.send(
        new CopyObjectCommand({
          Bucket: opts.bucket,
          Key: prefix + a.key,
          CopySource: encodeURI(`${opts.bucket}/${prefix}${a.from}`),
          MetadataDirective: 'COPY',
        }),
      );
      report.copied += 1;
    } else {
      report.skipped += 1;
    }
    done += 1;
    await opts.onObject?.({ action: a.kind, key: a.key, done, total: actions.length });
    if (performance.now() - lastLine > 2000 || done === actions.length) {
      lastLine = performance.now();
      say(`${done}/${actions.length} objects (uploaded ${report.uploaded}, copied ${report.copied}, skipped ${report.skipped})`);
    }
  });

  if (!target) {
    await put(keys.manifest(version), manifestBytes, sha256Hex(manifestBytes), CACHE_IMMUTABLE);
    report.manifestWritten = true;
  }
  if (pointerChanges) {
    // LAST: until this write succeeds, readers keep the previous version.
    await put(keys.pointer, pointerBytes, sha256Hex(pointerBytes), CACHE_POINTER);
    report.pointerWritten = true;
    say(`pointer ${prefix}${keys.pointer} -> ${version}`);
  }

  if (invalidationPaths.length > 0 && opts.distributionId) {
    const cloudFront = opts.cloudFront ?? new CloudFrontClient({ region: 'us-east-1', maxAttempts: 3 });
    try {
      const out = await cloudFront.send(
        new CreateInvalidationCommand({
          DistributionId: opts.distributionId,
          InvalidationBatch: { CallerReference: `publish-${version}-${Date.now()}`, Paths: { Quantity: invalidationPaths.length, Items: invalidationPaths } },
        }),
      );
      report.invalidationId = out.Invalidation?.Id ?? null;
      say(`CloudFront invalidation ${report.invalidationId ?? '?'} of ${invalidationPaths.length} path(s) on ${opts.distributionId}`);
    } catch (err) {
      // The new version is already serving; only the CDN may lag. Report rather than pretend the publish failed.
      report.invalidationError = (err as Error).message ?? String(err);
      say(`CloudFront invalidation FAILED (${report.invalidationError}); the new version is live, invalidate the paths by hand`);
    }
  }
  report.ms = performance.now() - t0;
  say(`done in ${(report.ms / 1000).toFixed(1)}s: uploaded ${report.uploaded} (${report.gzipped} gzipped, ${report.uploadedRawBytes} -> ${report.uploadedSentBytes} bytes), copied ${report.copied}, skipped ${report.skipped}`);
  return report;
}

/**
 * CloudFront paths whose answer may change when the pointer moves from `previous` to `next`: the pointer, the API
 * documents built from changed objects, and each added, changed or removed listing (or wildcards when there are many).
 */
export function invalidationPathsFor(previous: ManifestT | null, previousVersion: string | null, next: ManifestT, version: string): string[] {
  if (!previous || !previousVersion) return ['/*'];
  const rels = (m: ManifestT, v: string): Map<string, string> => new Map(Object.entries(m.objects).map(([k, e]) => [k.slice(keys.root(v).length), e.sha256]));
  const before = rels(previous, previousVersion);
  const after = rels(next, version);
  const changed = new Set<string>();
  for (const [rel, sha] of after) if (before.get(rel) !== sha) changed.add(rel);
  for (const rel of before.keys()) if (!after.has(rel)) changed.add(rel);
  // Every answer names its version (query_id, Directory-Version): a new pointer makes every cached search answer stale.
  const paths = [`/${keys.pointer}`, '/v1/attorneys*'];
  if (changed.has('coverage.json')) paths.push('/v1/coverage');
  if (changed.has('openapi.json')) paths.push('/openapi.json');
  const listings = [...changed].map((rel) => /^firms\/([^/]+)\.json$/.exec(rel)?.[1]).filter((id): id is string => id !== undefined).sort();
  if (listings.length > MAX_LISTING_INVALIDATIONS) paths.push('/v1/firms/*', '/r/*');
  else for (const id of listings) paths.push(`/v1/firms/${id}`, `/r/${id}`);
  // Pages for people and problem pages are cached at CloudFront like documents; a week's metro figures change them all,
  // so one wildcard per folder. `/` is not cached (it is negotiated on Accept).
  const changedUnder = (prefix: string): string[] => [...changed].filter((rel) => rel.startsWith(prefix)).map((rel) => rel.slice(prefix.length));
  const pages = changedUnder('pages/');
  for (const name of ['docs.json', 'corrections.json']) if (pages.includes(name)) paths.push(`/${name.slice(0, -'.json'.length)}`);
  for (const folder of ['metros', 'assets']) if (pages.some((name) => name.startsWith(`${folder}/`))) paths.push(`/${folder}/*`);
  if (changedUnder('problems/').length > 0) paths.push('/problems/*');
  return paths;
}

/** Content-Type by extension; every published document is JSON (openapi.json included). */
export function contentTypeOf(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.txt')) return 'text/plain; charset=utf-8';
  if (key.endsWith('.html')) return 'text/html; charset=utf-8';
  return 'application/octet-stream';
}

/** The pointer bytes generate writes for `version` (so the bucket's pointer equals the folder's). */
async function pointerFor(siteDir: string, version: string): Promise<Buffer> {
  const meta = Meta.parse(JSON.parse(await readFile(join(siteDir, keys.meta(version)), 'utf8')));
  return serialise(pointerDoc(version, meta.week));
}

async function readManifest(store: S3Store, version: string): Promise<ManifestT | null> {
  const bytes = await store.get(keys.manifest(version));
  return bytes ? Manifest.parse(parseJson(bytes, keys.manifest(version))) : null;
}

/** First difference between two manifests of the same version, or null when they list the same objects. */
function manifestDiff(a: ManifestT, b: ManifestT): string | null {
  for (const [key, e] of Object.entries(b.objects)) if (a.objects[key]?.sha256 !== e.sha256) return key;
  for (const key of Object.keys(a.objects)) if (!(key in b.objects)) return key;
  return null;
}

/** Key (relative to `prefix`) -> sha256 (from x-amz-meta-sha256) of objects already under `root`: leftovers of an interrupted publish. */
async function presentUnder(client: S3Client, bucket: string, prefix: string, root: string, concurrency: number): Promise<Map<string, string>> {
  const fullPrefix = prefix + root;
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: fullPrefix, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of page.Contents ?? []) if (o.Key) found.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const shas = new Map<string, string>();
  await runPool(found, concurrency, async (fullKey) => {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey }));
    const sha = head.Metadata?.sha256;
    if (sha) shas.set(fullKey.slice(prefix.length), sha);
  });
  return shas;
}

function parseJson(bytes: Uint8Array, key: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new Error(`${key} in the bucket is not JSON`);
  }
}

function clientOptionsOf(opts: PublishOptions): S3ClientOptions {
  const { region, endpoint, forcePathStyle, credentials, connectionTimeoutMs, requestTimeoutMs, socketTimeoutMs, maxAttempts, maxSockets } = opts;
  const picked: S3ClientOptions = { region, endpoint, forcePathStyle, credentials, connectionTimeoutMs, requestTimeoutMs, socketTimeoutMs, maxAttempts, maxSockets };
  return Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined)) as S3ClientOptions;
}
