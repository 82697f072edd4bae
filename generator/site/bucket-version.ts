/** Reading a published version's manifest from a store, composing it for a layered version (its base's manifest plus its map). */
import { z } from 'zod';
import { composeManifest, prefixesOf } from '../../shim/format/layers.ts';
import { keys, Layers, type LayersT, type ManifestT } from '../../shim/format/site-format.ts';
import { parseObject } from '../../shim/format/site-json.ts';
import { parseManifest } from './manifest-parse.ts';
import type { Store } from '../../shim/store/types.ts';

/** A version as a store holds it: its manifest as a complete version, and its map when it is a layer. */
export interface StoredVersion {
  version: string;
  manifest: ManifestT;
  layers: LayersT | null;
  /** Its meta.json as stored (a layer's own, with the map). */
  metaBytes: Uint8Array;
}

const MetaLayers = z.object({ layers: Layers.optional() });

/**
 * The version when it is complete in the store (a layer's meta.json, or a complete version's manifest.json, is written
 * after its objects), else null. Throws when a layer's base has no manifest: the layer cannot be served either.
 */
export async function readStoredVersion(store: Store, version: string): Promise<StoredVersion | null> {
  const metaBytes = await store.get(keys.meta(version));
  if (metaBytes === null) return null;
  let layers: LayersT | undefined;
  try {
    layers = parseObject(metaBytes, keys.meta(version), MetaLayers).layers;
  } catch {
    layers = undefined; // not a layer; a complete version is judged by its manifest
  }
  if (layers !== undefined) {
    const baseBytes = await store.get(keys.manifest(layers.base));
    if (baseBytes === null) throw new Error(`version ${version} is a layer over ${layers.base}, whose ${keys.manifest(layers.base)} is missing`);
    return { version, manifest: composeManifest(version, layers, parseManifest(baseBytes, keys.manifest(layers.base))), layers, metaBytes };
  }
  const bytes = await store.get(keys.manifest(version));
  return bytes === null ? null : { version, manifest: parseManifest(bytes, keys.manifest(version)), layers: null, metaBytes };
}

/** Every version prefix the given versions read from (themselves, and for a layer its base and every version its map names). */
export async function prefixesReadBy(store: Store, versions: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const version of versions) {
    const metaBytes = await store.get(keys.meta(version));
    if (metaBytes === null) throw new Error(`version ${version} is not in the store (no ${keys.meta(version)})`);
    let layers: LayersT | undefined;
    try {
      layers = parseObject(metaBytes, keys.meta(version), MetaLayers).layers;
    } catch {
      layers = undefined;
    }
    for (const v of prefixesOf(version, layers)) out.add(v);
  }
  return [...out].sort();
}
