/**
 * Layered versions: a version published as a layer holds under its own prefix only the objects that differ from a
 * complete base version; its meta.json says where every other object is. Resolution is one hop, from an immutable map,
 * so every key of one version resolves the same way for as long as the version exists.
 */
import { keys, type LayerEntryT, type LayersT, type ManifestT } from './site-format.ts';

/** Relative keys never read through the map: meta.json is always the version's own, a layered version has no manifest.json. */
const META = 'meta.json';
const MANIFEST = 'manifest.json';

/** The store key that holds `key` of `version`, or null when the version has no such object. Keys outside the version pass through. */
export function resolveLayered(version: string, layers: LayersT | undefined, key: string): string | null {
  if (layers === undefined) return key;
  const root = keys.root(version);
  if (!key.startsWith(root)) return key;
  const rel = key.slice(root.length);
  if (rel === META) return key;
  if (rel === MANIFEST) return null;
  const entry: LayerEntryT | undefined = layers.objects[rel];
  if (entry === null) return null;
  return keys.root(entry === undefined ? layers.base : entry.in) + rel;
}

/** A resolver bound to one version's map (identity for a complete version). */
export function layerResolver(version: string, layers: LayersT | undefined): (key: string) => string | null {
  return (key) => resolveLayered(version, layers, key);
}

/**
 * The manifest a layered version would have had as a complete version: the base's objects re-rooted, overridden by
 * the map, and meta.json as generated. Equal to the generator's manifest of the same version.
 */
export function composeManifest(version: string, layers: LayersT, base: ManifestT): ManifestT {
  const baseRoot = keys.root(layers.base);
  const root = keys.root(version);
  const objects: ManifestT['objects'] = {};
  for (const [key, entry] of Object.entries(base.objects)) {
    const rel = key.slice(baseRoot.length);
    if (rel === META || layers.objects[rel] !== undefined) continue;
    objects[root + rel] = entry;
  }
  for (const [rel, entry] of Object.entries(layers.objects))
    if (entry !== null) objects[root + rel] = { sha256: entry.sha256, bytes: entry.bytes };
  objects[root + META] = { ...layers.generated_meta };
  return { schema_version: 1, version, objects };
}

/** Every version prefix a version reads from: itself, and for a layered one its base and every version its map names. */
export function prefixesOf(version: string, layers: LayersT | undefined): Set<string> {
  const out = new Set([version]);
  if (layers === undefined) return out;
  out.add(layers.base);
  for (const entry of Object.values(layers.objects)) if (entry !== null) out.add(entry.in);
  return out;
}

/** The meta.json bytes the generator wrote, recovered from a layered meta.json (publish appends `layers` as the last field). */
export function generatedMetaBytes(layeredMeta: Uint8Array): Uint8Array {
  const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(layeredMeta)) as Record<string, unknown>;
  delete value.layers;
  return new TextEncoder().encode(`${JSON.stringify(value)}\n`);
}
