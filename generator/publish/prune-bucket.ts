/**
 * Pruning old version prefixes from the bucket (docs/DEPLOY.md, "Old versions"). A prefix v/<version>/ is deleted only
 * when no kept version reads from it: the serving version, the newest `keep` complete-or-layered versions and, for a
 * layer, its base and every version its map names all stay. A prefix with objects younger than `minAgeMs` stays too,
 * because it may be a publish still uploading (its meta.json is written after its objects). The plan is pure.
 */
import { z } from 'zod';
import { DeleteObjectsCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { normalisePrefix } from '../../shim/store/s3-client.ts';
import { prefixesOf } from '../../shim/format/layers.ts';
import { Layers, keys, type LayersT } from '../../shim/format/site-format.ts';
import { readObject } from '../../shim/format/site-json.ts';
import { S3Store } from '../../shim/store/s3.ts';

/** What the bucket says about one version prefix. */
export interface StoredVersionInfo {
  version: string;
  /** The week its meta.json names, or null when it has no (readable) meta.json: an upload in progress or abandoned. */
  week: string | null;
  /** When its meta.json was written (ms), or null without one. */
  metaModifiedMs: number | null;
  /** When its newest object was written (ms). */
  newestMs: number;
  /** Its layer map (a layered version), undefined for a complete one. */
  layers: LayersT | undefined;
  objects: number;
  bytes: number;
}

/** Why a prefix stays. */
export type KeepReason = 'serving' | 'recent' | 'read by a kept version' | 'younger than the minimum age';

/** The outcome of planning: each prefix kept (with why) or deleted. */
export interface PrunePlan {
  serving: string | null;
  keep: Array<{ version: string; why: KeepReason }>;
  remove: Array<{ version: string; objects: number; bytes: number }>;
}

/** Newest first: by week, then by when meta.json was written, then by id. */
function newerFirst(a: StoredVersionInfo, b: StoredVersionInfo): number {
  const w = (b.week ?? '').localeCompare(a.week ?? '');
  if (w !== 0) return w;
  const t = (b.metaModifiedMs ?? 0) - (a.metaModifiedMs ?? 0);
  return t !== 0 ? t : b.version.localeCompare(a.version);
}

/** Which prefixes to keep and which to delete. `keep` counts versions with a meta.json, the serving one included. */
export function planPrune(
  versions: readonly StoredVersionInfo[],
  serving: string | null,
  keep: number,
  nowMs: number,
  minAgeMs: number,
): PrunePlan {
  if (!Number.isInteger(keep) || keep < 1) throw new Error(`keep must be an integer >= 1, got ${keep}`);
  const byId = new Map(versions.map((v) => [v.version, v]));
  if (serving !== null && byId.get(serving)?.metaModifiedMs == null)
    throw new Error(`the pointer names ${serving}, which has no meta.json in the bucket: refusing to prune`);
  const why = new Map<string, KeepReason>();
  const roots: string[] = [];
  if (serving !== null) {
    why.set(serving, 'serving');
    roots.push(serving);
  }
  for (const v of versions.filter((x) => x.metaModifiedMs !== null).sort(newerFirst)) {
    if (roots.length >= keep) break;
    if (roots.includes(v.version)) continue;
    why.set(v.version, 'recent');
    roots.push(v.version);
  }
  for (const root of roots) {
    for (const p of prefixesOf(root, byId.get(root)?.layers)) {
      if (!byId.has(p))
        throw new Error(`kept version ${root} reads from v/${p}/, which is not in the bucket: refusing to prune`);
      if (!why.has(p)) why.set(p, 'read by a kept version');
    }
  }
  for (const v of versions)
    if (!why.has(v.version) && nowMs - v.newestMs < minAgeMs) why.set(v.version, 'younger than the minimum age');
  const sorted = [...versions].sort((a, b) => a.version.localeCompare(b.version));
  return {
    serving,
    keep: sorted
      .filter((v) => why.has(v.version))
      .map((v) => ({ version: v.version, why: why.get(v.version) as KeepReason })),
    remove: sorted
      .filter((v) => !why.has(v.version))
      .map((v) => ({ version: v.version, objects: v.objects, bytes: v.bytes })),
  };
}

/** One object of a listing. */
interface Listed {
  key: string;
  modifiedMs: number;
  bytes: number;
}

async function listAll(client: S3Client, bucket: string, prefix: string): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    for (const o of page.Contents ?? [])
      if (o.Key !== undefined) out.push({ key: o.Key, modifiedMs: o.LastModified?.getTime() ?? 0, bytes: o.Size ?? 0 });
  }
  return out;
}

/** What prune reads of a meta.json, whatever its schema: the week, and a layer's map (one that does not parse stops the prune). */
const PruneMeta = z.looseObject({ week: z.unknown().optional(), layers: Layers.optional() });
/** The pointer of any schema: the version it names (a pointer naming none stops the prune rather than keep nothing). */
const PrunePointer = z.looseObject({ version: z.string() });

/** Options of one prune. */
export interface PruneOptions {
  client: S3Client;
  bucket: string;
  prefix?: string;
  keep: number;
  /** Prefixes with an object younger than this stay (ms; default a day). */
  minAgeMs?: number;
  /** Keys per DeleteObjects request (1 to 1,000; default 1,000). A slow store may need fewer. */
  batchSize?: number;
  dryRun?: boolean;
  now?: () => number;
  log?: (line: string) => void;
}

/** Thrown when deleting stops part way: what was deleted, what was not, and that every kept version is whole. */
export class PruneStoppedError extends Error {
  /** Objects deleted by this run before it stopped. */
  readonly deletedObjects: number;
  constructor(message: string, deletedObjects: number) {
    super(message);
    this.name = 'PruneStoppedError';
    this.deletedObjects = deletedObjects;
  }
}

/** The largest DeleteObjects request S3 accepts. */
export const MAX_BATCH = 1000;

/**
 * Read the bucket, plan, and (unless dryRun) delete the planned prefixes, `batchSize` keys a request. Every doomed
 * version's meta.json goes first, in one request before any other object: from then on none of them is a version
 * (nothing can point at it, a later prune counts it as an abandoned upload), so a run that stops part way leaves no
 * damaged version that still looks whole, and a re-run deletes what is left. Kept prefixes are never touched.
 */
export async function pruneBucket(opts: PruneOptions): Promise<PrunePlan & { deletedObjects: number }> {
  const say = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const batchSize = opts.batchSize ?? MAX_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH)
    throw new Error(`batch size must be an integer from 1 to ${MAX_BATCH}, got ${batchSize}`);
  const root = normalisePrefix(opts.prefix);
  const store = new S3Store({ bucket: opts.bucket, prefix: root, client: opts.client });
  const objects = await listAll(opts.client, opts.bucket, `${root}v/`);
  const groups = new Map<string, Listed[]>();
  for (const o of objects) {
    const version = o.key.slice(`${root}v/`.length).split('/')[0] ?? '';
    if (version === '') continue;
    const list = groups.get(version);
    if (list === undefined) groups.set(version, [o]);
    else list.push(o);
  }
  say(`prune: ${groups.size} version prefixes, ${objects.length} objects under ${root}v/`);
  const infos: StoredVersionInfo[] = [];
  for (const [version, list] of groups) {
    const metaKey = `${root}${keys.meta(version)}`;
    const metaObject = list.find((o) => o.key === metaKey);
    let week: string | null = null;
    let layers: LayersT | undefined;
    if (metaObject !== undefined) {
      // A map that does not parse could hide a base still read: stop rather than guess.
      const meta = await readObject(store, keys.meta(version), PruneMeta);
      if (meta === null) throw new Error(`${metaKey} is listed but cannot be read: refusing to prune`);
      week = typeof meta.week === 'string' ? meta.week : null;
      layers = meta.layers;
    }
    infos.push({
      version,
      week,
      metaModifiedMs: metaObject?.modifiedMs ?? null,
      newestMs: Math.max(...list.map((o) => o.modifiedMs)),
      layers,
      objects: list.length,
      bytes: list.reduce((a, o) => a + o.bytes, 0),
    });
  }
  const servingNow = async (): Promise<string | null> => {
    const pointer = await readObject(store, keys.pointer, PrunePointer);
    return pointer === null ? null : pointer.version;
  };
  const serving = await servingNow();
  const plan = planPrune(infos, serving, opts.keep, (opts.now ?? Date.now)(), opts.minAgeMs ?? 86_400_000);
  for (const k of plan.keep) say(`keep   v/${k.version}/ (${k.why})`);
  for (const r of plan.remove)
    say(`${opts.dryRun ? 'would delete' : 'delete'} v/${r.version}/ (${r.objects} objects, ${r.bytes} bytes)`);
  if (opts.dryRun || plan.remove.length === 0) return { ...plan, deletedObjects: 0 };

  // The pointer may have moved since it was read (a rollback): re-plan rather than delete what it now names.
  const again = await servingNow();
  if (again !== serving)
    throw new Error(
      `the pointer moved from ${serving ?? 'none'} to ${again ?? 'none'} while planning: nothing deleted; run prune again`,
    );
  const total = plan.remove.reduce((a, r) => a + r.objects, 0);
  const started = Date.now();
  let deletedObjects = 0;
  const metaKeys = plan.remove.map((r) => `${root}${keys.meta(r.version)}`);
  const metas = new Set(objects.filter((o) => metaKeys.includes(o.key)).map((o) => o.key));
  const deleteBatch = async (batchKeys: string[], where: string): Promise<void> => {
    let res;
    try {
      res = await opts.client.send(
        new DeleteObjectsCommand({
          Bucket: opts.bucket,
          Delete: { Objects: batchKeys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
    } catch (err) {
      throw stopped(err as Error, where);
    }
    const errors = res.Errors ?? [];
    if (errors.length > 0)
      throw stopped(
        new Error(`${errors.length} keys not deleted, e.g. ${errors[0]?.Key}: ${errors[0]?.Message}`),
        where,
      );
    deletedObjects += batchKeys.length;
  };
  const stopped = (cause: Error, where: string): PruneStoppedError =>
    new PruneStoppedError(
      `stopped ${where} after deleting ${deletedObjects} of ${total} objects: ${cause.message}. ` +
        `Every kept version is whole (prune never deletes a kept version's objects, and each version being deleted lost its meta.json first, so nothing can point at it). ` +
        `Run the same command again to delete the rest (a slow store may need a larger --request-timeout-ms or a smaller --batch-size).`,
      deletedObjects,
    );

  for (let i = 0; i < metas.size; i += batchSize)
    await deleteBatch([...metas].slice(i, i + batchSize), "removing the deleted versions' meta.json");
  if (metas.size > 0) say(`removed meta.json of ${metas.size} version(s): none of them can be pointed at any more`);
  for (const r of plan.remove) {
    const doomed = (groups.get(r.version) ?? []).filter((o) => !metas.has(o.key)).map((o) => o.key);
    for (let i = 0; i < doomed.length; i += batchSize) {
      await deleteBatch(doomed.slice(i, i + batchSize), `in v/${r.version}/`);
      say(
        `v/${r.version}/: ${Math.min(i + batchSize, doomed.length)}/${doomed.length} objects deleted (${deletedObjects}/${total} in all, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
    say(`deleted v/${r.version}/`);
  }
  return { ...plan, deletedObjects };
}
