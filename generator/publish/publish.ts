/**
 * Atomic publish of a generated site folder to S3 (docs/DEPLOY.md): reads the local version and the bucket's state,
 * plans (publish-plan.ts: a layer holding only what changed, or a complete version; nothing is ever copied), uploads
 * the planned objects, then the layer's meta.json or the complete version's manifest, then the pointer
 * `<prefix>current.json` LAST, so a publish that stops halfway leaves the previous version serving; then invalidates.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { isCellPack } from '../../shim/format/paths.ts';
import {
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { normalisePrefix, s3Client, type S3ClientOptions } from '../../shim/store/s3-client.ts';
import { keys, Pointer, POINTER_TTL_MS } from '../../shim/format/site-format.ts';
import { parseJson, parseObject } from '../../shim/format/site-json.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { assertSafeKey } from '../../shim/store/types.ts';
import { readStoredVersion } from '../site/bucket-version.ts';
import { pointerDoc } from '../write/documents.ts';
import { manifestKeys } from '../site/manifest-join.ts';
import { parseManifest } from '../site/manifest-parse.ts';
import { AnyMeta, CURRENT_SCHEMA, otherSchemaMessage } from '../site/published-meta.ts';
import { planPublish, type LocalVersion, type PublishPlan, type RemoteState } from './publish-plan.ts';
import { removedListingsIn } from './removal-check.ts';
import { assertPointerUnmoved, isConditionFailed, pointerCondition, type PointerBase } from './pointer-cas.ts';
import { LiveMovedError } from '../write/live-moved.ts';
import type { ActiveRemovals } from '../model/removals.ts';
import { serialise, sha256Hex } from '../write/json.ts';
import { runPool } from '../write/pool.ts';

const gzipAsync = promisify(gzip);

/** Cache-Control of everything under v/<version>/: a version's objects never change once published. */
export const CACHE_IMMUTABLE = 'public, max-age=31536000, immutable';
/** Cache-Control of the pointer: always revalidate, so a new version is seen at once. */
export const CACHE_POINTER = 'no-cache';

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
  /**
   * Wait this long after the pointer write before invalidating (ms; default the shim's pointer TTL plus 1 s): until then
   * a function instance may still answer from the old version, and an answer it makes must not outlive the invalidation.
   */
  invalidationDelayMs?: number;
  /** Plan and print, write nothing. */
  dryRun?: boolean;
  /**
   * Write the pointer (default true). False uploads the version and leaves what is live alone: `npm run publish` is a
   * step, and only release (gates, removals, verify) moves the bucket's pointer.
   */
  writePointer?: boolean;
  /**
   * The bucket's pointer when the release began: the pointer is then written only if it is still that one (read again
   * just before, and written with IfMatch on its ETag, or IfNoneMatch "*" when there was none); otherwise
   * LiveMovedError and nothing is made live. Without it the pointer is written unconditionally.
   */
  base?: PointerBase;
  /** Run just before the pointer write (release: the standing removals read again); a throw leaves the pointer alone. */
  beforePointer?: () => Promise<void>;
  /** Run just after the pointer write, before anything else (release: its record says the pointer moved). */
  afterPointer?: () => Promise<void>;
  /** Publish every object under the version's own prefix, never as a layer (default false). */
  complete?: boolean;
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
  action: 'upload' | 'skip';
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
  /** `layered`: only what changed went up, the rest is read from earlier versions; `complete`; `published`: already there. */
  mode: PublishPlan['mode'];
  /** Objects listed in the manifest (the manifest itself and the pointer not counted). */
  objects: number;
  /** Objects written under the version's prefix (a layer's meta.json included). */
  uploaded: number;
  /** Always 0: nothing is copied (kept for readers of older reports). */
  copied: number;
  /** Objects a layer reads from an earlier version's prefix. */
  reused: number;
  skipped: number;
  /** Entries of a layer's map (0 for a complete version). */
  layerEntries: number;
  /** The plan in one line. */
  plan: string;
  /** A dry run: the keys it would upload, in order (the manifest or a layer's meta.json, then the pointer, last). */
  plannedPuts?: string[];
  manifestWritten: boolean;
  pointerWritten: boolean;
  /** Bytes of the uploaded objects (manifest and pointer included when written), before and after gzip (a dry run: before only). */
  uploadedRawBytes: number;
  uploadedSentBytes: number;
  /** Objects stored with Content-Encoding gzip among the uploaded ones. */
  gzipped: number;
  /** Milliseconds from the start to the pointer write (null when the pointer was not written). */
  pointerMs: number | null;
  /** CloudFront paths that serve something that changed (empty when the pointer did not move). */
  invalidationPaths: string[];
  invalidationId: string | null;
  /** When the invalidation was requested (ms since the publish started), null when none was. */
  invalidationAtMs: number | null;
  /** Set when the pointer moved but CreateInvalidation failed (invalidate invalidationPaths by hand). */
  invalidationError: string | null;
  ms: number;
}

/** Publish the site folder's version to the bucket; resolves once the pointer is written (and invalidation requested). */
export async function publishSite(opts: PublishOptions): Promise<PublishReport> {
  const t0 = performance.now();
  const log = opts.quiet ? () => undefined : (opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`)));
  const say = (msg: string): void => log(`publish [${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
  const siteDir = opts.siteDir ?? 'site';
  const prefix = normalisePrefix(opts.prefix);
  const concurrency = opts.concurrency ?? 16;
  const client =
    opts.client ??
    s3Client({
      connectionTimeoutMs: 3000,
      requestTimeoutMs: 30_000,
      socketTimeoutMs: 30_000,
      maxSockets: concurrency,
      ...clientOptionsOf(opts),
    });
  const remote = new S3Store({ bucket: opts.bucket, prefix, client });

  const local = await readLocal(siteDir, opts.version);
  say(
    `site ${siteDir}: version ${local.version}, ${manifestKeys(local.manifest.objects).length} objects -> s3://${opts.bucket}/${prefix}`,
  );
  if (opts.removals !== undefined && opts.removals.count > 0) {
    const held = await removedListingsIn(siteDir, local.version, opts.removals);
    if (held.length > 0) {
      throw new RemovedListingError(
        `version ${local.version} contains ${held.length} listing(s) under a standing removal, refused (regenerate it with the removals applied): ${held.slice(0, 5).join('; ')}`,
      );
    }
    say(`no listing under the ${opts.removals.count} standing removal(s)`);
  }
  const state = await readRemote(remote, client, opts.bucket, prefix, local.version, concurrency);
  say(
    state.live
      ? `bucket serves ${state.live.version}${state.live.layers ? ` (a layer over ${state.live.layers.base})` : ''}`
      : 'bucket serves nothing yet',
  );
  if (opts.base !== undefined && (state.live?.version ?? null) !== opts.base.version)
    throw new LiveMovedError(`s3://${opts.bucket}/${prefix}`, opts.base.version, state.live?.version ?? null);
  const plan = planPublish(local, state, opts.complete ? { complete: true } : {});
  if (opts.writePointer === false) {
    plan.pointer = null;
    plan.invalidationPaths = [];
  } else if (opts.base !== undefined && plan.pointer === null && state.live?.version === plan.version) {
    // A release of the live version: the run that made it live may have been killed between its pointer write and its
    // invalidation, and nothing here says whether it got that far, so everything cached is invalidated again (one path).
    plan.invalidationPaths = ['/*'];
    say(
      `${plan.version} is already live: invalidating /* again, in case the run that made it live stopped before it did`,
    );
  }
  const planLine = describePlan(plan);
  say(planLine);

  const report: PublishReport = {
    version: plan.version,
    previousVersion: plan.previousVersion,
    dryRun: opts.dryRun ?? false,
    mode: plan.mode,
    objects: plan.objects,
    uploaded: 0,
    copied: 0,
    reused: plan.reused,
    skipped: plan.skipped,
    layerEntries: plan.layers ? Object.keys(plan.layers.objects).length : 0,
    plan: planLine,
    manifestWritten: false,
    pointerWritten: false,
    uploadedRawBytes: 0,
    uploadedSentBytes: 0,
    gzipped: 0,
    pointerMs: null,
    invalidationPaths: plan.invalidationPaths,
    invalidationId: null,
    invalidationAtMs: null,
    invalidationError: null,
    ms: 0,
  };
  if (opts.dryRun) {
    report.uploaded = plan.puts.length + (plan.meta ? 1 : 0);
    report.plannedPuts = [
      ...plan.puts.map((p) => p.key),
      ...(plan.manifest ? [keys.manifest(plan.version)] : []),
      ...(plan.meta ? [keys.meta(plan.version)] : []),
      ...(plan.pointer ? [keys.pointer] : []),
    ];
    report.uploadedRawBytes =
      plan.puts.reduce((s, p) => s + p.bytes, 0) +
      (plan.meta?.length ?? 0) +
      (plan.manifest ? local.manifestBytes.length : 0) +
      (plan.pointer?.length ?? 0);
    report.ms = performance.now() - t0;
    say('dry run: nothing written');
    return report;
  }

  const put = uploader(client, opts, prefix, report);
  await executePlan(plan, siteDir, concurrency, put, report, opts.onObject, say);
  if (plan.manifest) {
    await put(keys.manifest(plan.version), local.manifestBytes, CACHE_IMMUTABLE);
    report.manifestWritten = true;
  }
  if (plan.meta) {
    // A layer is complete once its meta.json (which carries the map) is in place: written after its objects.
    await put(keys.meta(plan.version), Buffer.from(plan.meta), CACHE_IMMUTABLE);
    report.uploaded += 1;
  }
  if (plan.pointer) {
    // LAST: until this write succeeds, readers keep the previous version.
    await opts.beforePointer?.();
    if (opts.base !== undefined) {
      // Read again and compare (a server that ignores conditions is refused here), then the conditional write.
      await assertPointerUnmoved(client, opts.bucket, prefix, opts.base);
      try {
        await put(keys.pointer, Buffer.from(plan.pointer), CACHE_POINTER, pointerCondition(opts.base));
      } catch (err) {
        if (!isConditionFailed(err)) throw err;
        throw new LiveMovedError(`s3://${opts.bucket}/${prefix}`, opts.base.version, '(another version)');
      }
    } else await put(keys.pointer, Buffer.from(plan.pointer), CACHE_POINTER);
    report.pointerWritten = true;
    report.pointerMs = performance.now() - t0;
    await opts.afterPointer?.();
    say(`pointer ${prefix}${keys.pointer} -> ${plan.version}`);
  }
  if (plan.invalidationPaths.length > 0 && opts.distributionId) {
    const delay = opts.invalidationDelayMs ?? POINTER_TTL_MS + 1000;
    if (plan.pointer && delay > 0) {
      say(`waiting ${(delay / 1000).toFixed(1)}s for function instances to reread the pointer before invalidating`);
      // Timers may fire a fraction of a millisecond early by this clock: wait until the delay has really passed.
      const until = t0 + (report.pointerMs ?? 0) + delay;
      while (performance.now() < until) await sleep(Math.max(1, until - performance.now()));
    }
    report.invalidationAtMs = performance.now() - t0;
    await invalidate(opts.distributionId, opts.cloudFront, plan, report, say);
  }
  report.ms = performance.now() - t0;
  say(
    `done in ${(report.ms / 1000).toFixed(1)}s (${plan.mode}): uploaded ${report.uploaded} (${report.gzipped} gzipped, ${report.uploadedRawBytes} -> ${report.uploadedSentBytes} bytes), reused ${report.reused}, skipped ${report.skipped}`,
  );
  return report;
}

/** One line saying what a plan does. */
export function describePlan(plan: PublishPlan): string {
  const what =
    plan.mode === 'layered'
      ? `a layer over ${plan.layers?.base ?? '?'}: upload ${plan.puts.length} changed object(s) + meta.json with a map of ${Object.keys(plan.layers?.objects ?? {}).length} entries, read ${plan.reused} unchanged in place`
      : plan.mode === 'complete'
        ? `complete: upload ${plan.puts.length} object(s) + manifest.json`
        : 'already in the bucket: upload nothing';
  return `plan for ${plan.version}: ${what}, skip ${plan.skipped} already there; copy none; pointer ${plan.pointer ? 'to write' : 'unchanged'}`;
}

/** The local version to publish: pointer, manifest (checked) and generated meta.json. */
async function readLocal(
  siteDir: string,
  version: string | undefined,
): Promise<LocalVersion & { manifestBytes: Buffer }> {
  const pointerBytes =
    version === undefined ? await readFile(join(siteDir, keys.pointer)) : await pointerFor(siteDir, version);
  const v = parseObject(pointerBytes, keys.pointer, Pointer).version;
  const root = keys.root(v);
  const manifestBytes = await readFile(join(siteDir, keys.manifest(v)));
  const manifest = parseManifest(manifestBytes, join(siteDir, keys.manifest(v)));
  if (manifest.version !== v) throw new Error(`manifest names version ${manifest.version}, pointer names ${v}`);
  for (const key of manifestKeys(manifest.objects)) {
    assertSafeKey(key);
    if (!key.startsWith(root)) throw new Error(`manifest key ${key} is outside ${root}`);
  }
  const metaBytes = await readFile(join(siteDir, keys.meta(v)));
  // A generated version of an older schema (kept for rollback) would not be served by this shim: say so before any upload.
  let metaValue: unknown = null;
  try {
    metaValue = parseJson(metaBytes, keys.meta(v));
  } catch {
    // not a generated meta.json: publish is content-agnostic, the plan copes
  }
  const meta = AnyMeta.safeParse(metaValue);
  if (meta.success && meta.data.schema_version !== CURRENT_SCHEMA)
    throw new Error(otherSchemaMessage(`site ${siteDir}`, v, meta.data.schema_version));
  const metaEntry = manifest.objects[keys.meta(v)];
  if (metaEntry !== undefined && sha256Hex(metaBytes) !== metaEntry.sha256)
    throw new Error(`${keys.meta(v)} on disk does not match the manifest`);
  const week = Pointer.parse(JSON.parse(pointerBytes.toString('utf8'))).week;
  // The pointer names the hash of the meta.json the bucket will hold (a layer's own, when published as one).
  const pointerTo = (meta: Uint8Array): Uint8Array => serialise(pointerDoc(v, week, sha256Hex(meta)));
  return { version: v, manifest, manifestBytes, metaBytes, pointerBytes: pointerTo(metaBytes), pointerFor: pointerTo };
}

/** The bucket's pointer, the version it serves, the target version if complete, and leftovers under the target. */
async function readRemote(
  store: S3Store,
  client: S3Client,
  bucket: string,
  prefix: string,
  version: string,
  concurrency: number,
): Promise<RemoteState> {
  const pointerBytes = await store.get(keys.pointer);
  const liveVersion = pointerBytes ? parseObject(pointerBytes, keys.pointer, Pointer).version : null;
  const live = liveVersion ? await readStoredVersion(store, liveVersion) : null;
  if (liveVersion && !live) throw new Error(`the bucket's pointer names ${liveVersion} but its manifest is missing`);
  const target = liveVersion === version ? live : await readStoredVersion(store, version);
  const present = target
    ? new Map<string, string>()
    : await presentUnder(client, bucket, prefix, keys.root(version), concurrency);
  return { pointerBytes, live, target, present };
}

/** Upload every planned object from the site folder, checking each against the manifest first. */
async function executePlan(
  plan: PublishPlan,
  siteDir: string,
  concurrency: number,
  put: (key: string, body: Buffer, cacheControl: string) => Promise<void>,
  report: PublishReport,
  onObject: PublishOptions['onObject'],
  say: (msg: string) => void,
): Promise<void> {
  let done = 0;
  let lastLine = performance.now();
  await runPool(plan.puts, concurrency, async (p) => {
    const body = await readFile(join(siteDir, p.key));
    const sha = sha256Hex(body);
    if (sha !== p.sha256 || body.length !== p.bytes)
      throw new Error(`${p.key} on disk does not match the manifest (sha256 ${sha}, ${body.length} bytes)`);
    await put(p.key, body, CACHE_IMMUTABLE);
    report.uploaded += 1;
    done += 1;
    await onObject?.({ action: 'upload', key: p.key, done, total: plan.puts.length });
    if (performance.now() - lastLine > 2000 || done === plan.puts.length) {
      lastLine = performance.now();
      say(`${done}/${plan.puts.length} objects uploaded`);
    }
  });
}

/** A PutObject of one body (gzip-encoded when that saves 10%, a pack of blocks never), counted in the report. */
function uploader(client: S3Client, opts: PublishOptions, prefix: string, report: PublishReport) {
  const gzipOn = opts.gzip ?? true;
  const gzipMin = opts.gzipMinBytes ?? 1024;
  return async (
    key: string,
    body: Buffer,
    cacheControl: string,
    condition: Pick<PutObjectCommandInput, 'IfMatch' | 'IfNoneMatch'> = {},
  ): Promise<void> => {
    let sent = body;
    let encoding: string | undefined;
    // A pack is read by byte ranges, which a gzip-encoded object cannot give (S3 ranges the stored bytes).
    if (gzipOn && body.length > gzipMin && !isCellPack(key)) {
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
        Metadata: { sha256: sha256Hex(body) },
        ...condition,
      }),
    );
    report.uploadedRawBytes += body.length;
    report.uploadedSentBytes += sent.length;
    if (encoding) report.gzipped += 1;
  };
}

/**
 * Uploads just `storeKeys` of the folder site `opts.siteDir`, each stored as publishSite stores it (gzip-encoded when that
 * saves 10%, the same headers), and nothing else: no plan, no manifest. For measuring the reads of a few objects of a
 * site too large to publish whole (the benchmark's million-office cold path over S3); the pointer is one of the keys.
 */
export async function putSiteObjects(
  opts: PublishOptions,
  storeKeys: readonly string[],
): Promise<{ uploaded: number; gzipped: number; rawBytes: number; sentBytes: number; ms: number }> {
  const t0 = performance.now();
  const siteDir = opts.siteDir ?? 'site';
  const concurrency = opts.concurrency ?? 16;
  const client = opts.client ?? s3Client({ maxSockets: concurrency, ...clientOptionsOf(opts) });
  const report = { uploadedRawBytes: 0, uploadedSentBytes: 0, gzipped: 0 } as PublishReport;
  const put = uploader(client, opts, normalisePrefix(opts.prefix), report);
  await runPool(storeKeys, concurrency, async (key) => {
    assertSafeKey(key);
    await put(key, await readFile(join(siteDir, key)), key === keys.pointer ? CACHE_POINTER : CACHE_IMMUTABLE);
  });
  return {
    uploaded: storeKeys.length,
    gzipped: report.gzipped,
    rawBytes: report.uploadedRawBytes,
    sentBytes: report.uploadedSentBytes,
    ms: performance.now() - t0,
  };
}

/** Ask CloudFront to invalidate the plan's paths; a failure is reported, not thrown (the new version already serves). */
async function invalidate(
  distributionId: string,
  given: CloudFrontClient | undefined,
  plan: PublishPlan,
  report: PublishReport,
  say: (msg: string) => void,
): Promise<void> {
  const cloudFront = given ?? new CloudFrontClient({ region: 'us-east-1', maxAttempts: 3 });
  const paths = plan.invalidationPaths;
  try {
    const out = await cloudFront.send(
      new CreateInvalidationCommand({
        DistributionId: distributionId,
        InvalidationBatch: {
          CallerReference: `publish-${plan.version}-${Date.now()}`,
          Paths: { Quantity: paths.length, Items: paths },
        },
      }),
    );
    report.invalidationId = out.Invalidation?.Id ?? null;
    say(`CloudFront invalidation ${report.invalidationId ?? '?'} of ${paths.length} path(s) on ${distributionId}`);
  } catch (err) {
    report.invalidationError = (err as Error).message ?? String(err);
    say(
      `CloudFront invalidation FAILED (${report.invalidationError}); the new version is live, invalidate the paths by hand`,
    );
  }
}

/** Content-Type by extension: documents are JSON (openapi.json included), binary cell objects (`.pb`) not. */
export function contentTypeOf(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.txt')) return 'text/plain; charset=utf-8';
  if (key.endsWith('.html')) return 'text/html; charset=utf-8';
  return 'application/octet-stream';
}

/** The pointer bytes generate writes for `version` (so the bucket's pointer equals the folder's). */
async function pointerFor(siteDir: string, version: string): Promise<Buffer> {
  const metaBytes = await readFile(join(siteDir, keys.meta(version)));
  const meta = parseObject(metaBytes, keys.meta(version), AnyMeta.pick({ week: true }));
  return serialise(pointerDoc(version, meta.week, sha256Hex(metaBytes)));
}

/** The pointer to `version` of the site folder, naming the sha256 of its meta.json there. */
export const folderPointer = pointerFor;

/** Key (relative to `prefix`) -> sha256 (from x-amz-meta-sha256) of objects already under `root`: leftovers of an interrupted publish. */
async function presentUnder(
  client: S3Client,
  bucket: string,
  prefix: string,
  root: string,
  concurrency: number,
): Promise<Map<string, string>> {
  const fullPrefix = prefix + root;
  const found: string[] = [];
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: fullPrefix }))
    for (const o of page.Contents ?? []) if (o.Key) found.push(o.Key);
  const shas = new Map<string, string>();
  await runPool(found, concurrency, async (fullKey) => {
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: fullKey }));
    const sha = head.Metadata?.sha256;
    if (sha) shas.set(fullKey.slice(prefix.length), sha);
  });
  return shas;
}

/** The S3 client settings a publish passes through from its options. */
const CLIENT_OPTION_KEYS = [
  'region',
  'endpoint',
  'forcePathStyle',
  'credentials',
  'connectionTimeoutMs',
  'requestTimeoutMs',
  'socketTimeoutMs',
  'maxAttempts',
  'maxSockets',
] as const satisfies readonly (keyof S3ClientOptions)[];

function clientOptionsOf(opts: PublishOptions): S3ClientOptions {
  return Object.fromEntries(
    CLIENT_OPTION_KEYS.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]]),
  ) as S3ClientOptions;
}
