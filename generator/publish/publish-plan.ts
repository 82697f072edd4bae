/**
 * The plan of one publish, computed from manifests alone (no I/O): which local objects to upload, whether the version
 * goes up complete or as a layer over the serving one, the meta.json of a layer, the pointer, and the CloudFront paths.
 * Nothing is ever copied: an object unchanged since the serving version is read where it already is.
 */
import { keys, type LayersT, type ManifestT } from '../../shim/format/site-format.ts';
import { invalidationPathsFor } from './invalidation.ts';
import { joinManifests, manifestKeys } from '../site/manifest-join.ts';
import { serialise } from '../write/json.ts';

/** A layer's map may name at most this many objects (it is read with meta.json, once per version per reader). */
export const MAX_LAYER_ENTRIES = 5000;
/**
 * Most bytes a layer map may add to the generated meta.json: every cold query reads meta.json. A map entry is about
 * 155 bytes (key, version, sha256, size), so 5,000 entries would add 760 KB; 64 KiB holds about 350. The generated
 * meta itself (with the sha256 of every object it names) is not counted: it is the same size whether the version goes
 * up layered or complete. A correction whose map would not fit goes up complete.
 */
export const MAX_LAYER_META_BYTES = 64 * 1024;

/** The version to publish, as the site folder holds it (complete). */
export interface LocalVersion {
  version: string;
  manifest: ManifestT;
  /** The generated meta.json, as listed in the manifest. */
  metaBytes: Uint8Array;
  pointerBytes: Uint8Array;
  /** The pointer naming the given meta.json bytes (those the bucket holds for the version); absent: pointerBytes. */
  pointerFor?: (metaBytes: Uint8Array) => Uint8Array;
}

/** A version in the bucket: its manifest as a complete version (composed for a layer) and its map when layered. */
export interface RemoteVersion {
  version: string;
  manifest: ManifestT;
  layers: LayersT | null;
  /** Its meta.json as stored (a layer's own); the pointer records their sha256. */
  metaBytes?: Uint8Array;
}

/** What the bucket holds that the plan depends on. */
export interface RemoteState {
  pointerBytes: Uint8Array | null;
  /** The version the pointer names (null when nothing is published yet). */
  live: RemoteVersion | null;
  /** The version to publish, when it is already complete in the bucket (a republish or a rollback). */
  target: RemoteVersion | null;
  /** Objects already under the version's prefix (leftovers of an interrupted publish): key -> sha256. */
  present: ReadonlyMap<string, string>;
}

/** One object to upload from the site folder. */
export interface PlannedPut {
  /** Store key (relative to the bucket prefix), which is also its path under the site folder. */
  key: string;
  sha256: string;
  bytes: number;
}

/** The outcome of planPublish. */
export interface PublishPlan {
  version: string;
  previousVersion: string | null;
  /** `layered`: own prefix holds only what changed; `complete`: every object under its own prefix; `published`: already in the bucket. */
  mode: 'layered' | 'complete' | 'published';
  /** Local objects in the manifest (the manifest itself not counted). */
  objects: number;
  /** Uploads, in key order (meta.json of a layer is not among them: see `meta`). */
  puts: PlannedPut[];
  /** Objects already under the version's prefix with the right hash. */
  skipped: number;
  /** Objects read from another version's prefix (a layer's unchanged objects). */
  reused: number;
  /** The map of a layered version (null otherwise). */
  layers: LayersT | null;
  /** meta.json to write after the puts, a layer's completion mark (null unless layered). */
  meta: Uint8Array | null;
  /** Write the local manifest.json after the puts (a complete version). */
  manifest: boolean;
  /** The pointer to write last, or null when the bucket's is already these bytes. */
  pointer: Uint8Array | null;
  invalidationPaths: string[];
}

/** Options of planPublish. */
export interface PlanOptions {
  /** Largest map a layer may carry before the version goes up complete instead (default MAX_LAYER_ENTRIES). */
  maxLayerEntries?: number;
  /** Most bytes a layer map may add to meta.json before the version goes up complete instead (default MAX_LAYER_META_BYTES). */
  maxLayerMetaBytes?: number;
  /** Never layer (default false). */
  complete?: boolean;
}

const same = (a: { sha256: string; bytes: number } | undefined, b: { sha256: string; bytes: number }): boolean =>
  a !== undefined && a.sha256 === b.sha256 && a.bytes === b.bytes;

/** First key whose entry differs between two manifests of the same version, or null when they are equal. */
export function manifestDiff(a: ManifestT, b: ManifestT): string | null {
  for (const [key, e] of Object.entries(b.objects)) if (!same(a.objects[key], e)) return key;
  for (const key of Object.keys(a.objects)) if (b.objects[key] === undefined) return key;
  return null;
}

/**
 * The map of `local` as a layer over `live`: every object that differs from live's base, flattened (an object live
 * reads from an earlier layer keeps pointing there). Null when `local`'s meta.json is not a JSON object.
 */
export function layerOver(
  local: LocalVersion,
  live: RemoteVersion,
): { layers: LayersT; own: PlannedPut[]; reused: number; meta: Uint8Array } | null {
  let metaValue: unknown;
  try {
    metaValue = JSON.parse(Buffer.from(local.metaBytes).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof metaValue !== 'object' || metaValue === null || Array.isArray(metaValue)) return null;
  const root = keys.root(local.version);
  const liveRoot = keys.root(live.version);
  const base = live.layers?.base ?? live.version;
  const objects: LayersT['objects'] = Object.create(null) as LayersT['objects'];
  const own: PlannedPut[] = [];
  let reused = 0;
  const localObjects = local.manifest.objects;
  // One ordered walk of both manifests (no lookup by a built key: see manifest-join.ts).
  joinManifests(localObjects, root, live.manifest.objects, liveRoot, (rel, entry, inLive) => {
    if (rel === 'meta.json' || rel === 'manifest.json') return;
    if (entry === undefined) {
      // Whatever live has that this version lacks must not fall through to the base.
      objects[rel] = null;
    } else if (same(inLive, entry)) {
      reused += 1;
      // Where live reads it: its own map's entry, else its base (a complete live version is its own base).
      const at = live.layers?.objects[rel]?.in ?? base;
      if (at !== base) objects[rel] = { in: at, ...entry };
    } else {
      objects[rel] = { in: local.version, ...entry };
      own.push({ key: root + rel, ...entry });
    }
  });
  // Nor what live's map hides.
  const lacks = (rel: string): boolean => rel !== 'manifest.json' && localObjects[root + rel] === undefined;
  for (const rel of Object.keys(live.layers?.objects ?? {})) if (lacks(rel)) objects[rel] = null;
  const metaEntry = local.manifest.objects[root + 'meta.json'];
  if (metaEntry === undefined) return null;
  const layers: LayersT = { base, generated_meta: { ...metaEntry }, objects };
  return { layers, own, reused, meta: serialise({ ...metaValue, layers: sortedLayers(layers) }) };
}

/** The map with its objects in key order, so the same publish writes the same bytes. */
function sortedLayers(layers: LayersT): LayersT {
  const objects = Object.fromEntries(Object.entries(layers.objects).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { base: layers.base, generated_meta: layers.generated_meta, objects };
}

/** Plan the publish of `local` against the bucket's state; throws when the bucket already holds the version with other content. */
export function planPublish(local: LocalVersion, remote: RemoteState, opts: PlanOptions = {}): PublishPlan {
  const { version, manifest } = local;
  const live = remote.live;
  const target = remote.target ?? (live?.version === version ? live : null);
  if (target) {
    const diff = manifestDiff(target.manifest, manifest);
    if (diff)
      throw new Error(
        `version ${version} is already in the bucket with different content (${diff}); published versions are immutable. ${
          live?.version === version
            ? `It is live: to keep it there is nothing to do; to publish this output (a generator upgraded since it was made), run npm run release -- --week <its week> --new-version, which makes it a new version over ${version}`
            : `It is not live: leave it as it is; this output goes out once the inputs change (a correction, a removal, the next week), which gives another id`
        }`,
      );
  }
  const all = manifestKeys(manifest.objects);
  const plan: PublishPlan = {
    version,
    previousVersion: live?.version ?? null,
    mode: 'published',
    objects: all.length,
    puts: [],
    skipped: 0,
    reused: 0,
    layers: null,
    meta: null,
    manifest: false,
    pointer: null,
    invalidationPaths: [],
  };
  // The pointer names the sha256 of the meta.json the bucket holds once the plan ran (already there, a layer's own, or
  // the generated one), and is written only when it differs from the bucket's.
  const withPointer = (metaBytes: Uint8Array | undefined): PublishPlan => {
    const pointer =
      local.pointerFor !== undefined && metaBytes !== undefined ? local.pointerFor(metaBytes) : local.pointerBytes;
    const pointerChanges =
      remote.pointerBytes === null || !Buffer.from(remote.pointerBytes).equals(Buffer.from(pointer));
    plan.pointer = pointerChanges ? pointer : null;
    plan.invalidationPaths = pointerChanges
      ? invalidationPathsFor(live?.manifest ?? null, live?.version ?? null, manifest, version)
      : [];
    return plan;
  };
  if (target) {
    plan.skipped = all.length;
    return withPointer(target.metaBytes);
  }
  const isPresent = (p: PlannedPut): boolean => remote.present.get(p.key) === p.sha256;
  const layer = live && !opts.complete ? layerOver(local, live) : null;
  const entries = layer ? Object.keys(layer.layers.objects).length : Infinity;
  const fits =
    layer !== null &&
    layer.meta.byteLength - local.metaBytes.byteLength <= (opts.maxLayerMetaBytes ?? MAX_LAYER_META_BYTES);
  if (layer && fits && entries <= (opts.maxLayerEntries ?? MAX_LAYER_ENTRIES) && entries * 2 < all.length) {
    plan.mode = 'layered';
    plan.puts = layer.own.filter((p) => !isPresent(p));
    plan.skipped = layer.own.length - plan.puts.length;
    plan.reused = layer.reused;
    plan.layers = layer.layers;
    plan.meta = layer.meta;
    return withPointer(layer.meta);
  }
  plan.mode = 'complete';
  const puts = all.map((key) => ({ key, ...manifest.objects[key]! }));
  plan.puts = puts.filter((p) => !isPresent(p));
  plan.skipped = puts.length - plan.puts.length;
  plan.manifest = true;
  return withPointer(local.metaBytes);
}
