/**
 * Manifest check of one version: every listed object present with the listed sha256 and size, no object under the
 * version that the manifest does not list, and the version id recomputed from the content hashes.
 */
import { openProven, provenRel } from '../../shim/format/proofs.ts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { generatedMetaBytes } from '../../shim/format/layers.ts';
import { keys, Manifest, type ManifestT } from '../../shim/format/site-format.ts';
import { readStoredVersion } from '../site/bucket-version.ts';
import { mapPool } from '../write/pool.ts';
import { progressEvery } from '../write/progress.ts';
import { StoreError } from '../../shim/contract/errors.ts';
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import type { AuditSite } from '../site/site.ts';

/** What the manifest check found. */
export interface ManifestCheck {
  objects: number;
  bytes: number;
  /** Each broken invariant, naming the key (empty when the version is intact). */
  problems: string[];
}

/** Options of checkManifest. */
export interface ManifestCheckOptions {
  concurrency?: number;
  log?: (line: string) => void;
}

/**
 * The version id the generator derives from content: `<week>-<first 10 hex of sha256>` over the lines
 * `<key relative to v/<version>/> TAB <sha256>\n` of every object except meta.json, manifest.json, changes.json (which
 * depends on the version live before), the hashes/ documents (written after the id, from the hashes it covers) and
 * openapi.json (its examples are answers of the version, so it is written after the id; versions generated before that
 * rule hash it: `openapiInId`), sorted by key, then `meta TAB <meta schema>\n` (versions of meta schema 3 on).
 */
export function expectedVersionId(
  week: string,
  version: string,
  objects: Record<string, { sha256: string }>,
  previous: string | null = null,
  openapiInId = false,
  metaSchema: number | null = SCHEMA_VERSIONS.meta,
): string {
  const root = keys.root(version);
  const skip = new Set([keys.meta(version), keys.manifest(version), keys.changes(version)]);
  if (!openapiInId) skip.add(keys.openapi(version));
  const lines = Object.keys(objects)
    .filter((k) => !skip.has(k) && k.startsWith(root) && !k.startsWith(`${root}hashes/`))
    .map((k) => k.slice(root.length))
    .sort()
    .map((rel) => `${rel}\t${(objects[root + rel] as { sha256: string }).sha256}\n`);
  if (metaSchema !== null) lines.push(`meta\t${metaSchema}\n`);
  if (previous !== null) lines.push(`previous\t${previous}\n`);
  return `${week}-${createHash('sha256').update(lines.join('')).digest('hex').slice(0, 10)}`;
}

/** Only the field of the changes document the version id covers. */
const ChangesPrevious = z.object({ previous: z.object({ version: z.string() }).nullable() });

/** Check the manifest of the site's version against the objects actually stored. */
export async function checkManifest(site: AuditSite, options: ManifestCheckOptions = {}): Promise<ManifestCheck> {
  const v = site.version;
  const layered = site.meta.layers !== undefined;
  const manifestKey = keys.manifest(v);
  // A layered version has no manifest of its own: its base's, overridden by its map, is the one it would have had.
  // Over HTTP the service serves a layered version's composed manifest at the version's own key.
  const manifest = layered && !site.overHttp ? await composedManifest(site) : await site.json(manifestKey, Manifest);
  if (manifest === null) throw new StoreError(`${site.label}: version ${v} has no ${manifestKey}`, manifestKey);
  const problems: string[] = [];
  if (manifest.version !== v) problems.push(`${manifestKey} names version ${manifest.version}, not ${v}`);
  const listed = Object.entries(manifest.objects).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [key] of listed)
    if (!key.startsWith(keys.root(v))) problems.push(`${manifestKey} lists ${key}, outside ${keys.root(v)}`);
  if (manifest.objects[manifestKey] !== undefined) problems.push(`${manifestKey} lists itself`);
  for (const required of [keys.meta(v), keys.cellIndex(v), keys.coverage(v), keys.coverageCells(v), keys.openapi(v)]) {
    if (manifest.objects[required] === undefined) problems.push(`${manifestKey} does not list ${required}`);
  }

  const progress = progressEvery(options.log);
  let done = 0;
  let bytes = 0;
  await mapPool(listed, options.concurrency ?? 32, async ([key, want]) => {
    let got: Uint8Array | null;
    try {
      got = await site.store.get(key);
    } catch (err) {
      throw new StoreError(`${site.label}: ${(err as Error).message}`, key, { cause: err });
    }
    progress(++done, listed.length, 'manifest objects hashed');
    if (got === null) {
      problems.push(`${key}: listed in the manifest but missing`);
      return;
    }
    // A layer's meta.json carries its map; the manifest lists it as generated.
    if (layered && key === keys.meta(v)) got = generatedMetaBytes(got);
    bytes += got.byteLength;
    const sha = createHash('sha256').update(got).digest('hex');
    if (sha !== want.sha256) problems.push(`${key}: sha256 ${sha}, the manifest says ${want.sha256}`);
    if (got.byteLength !== want.bytes)
      problems.push(`${key}: ${got.byteLength} bytes, the manifest says ${want.bytes}`);
    // A gazetteer document the shim checks by its proof: the proof must lead to meta.json's root.
    const rel = key.slice(keys.root(v).length);
    const root = site.meta.gazetteer_root;
    if (root !== undefined && provenRel(rel)) {
      try {
        openProven(key, rel, got, root);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
  });

  const present = await site.listVersionKeys();
  for (const key of present)
    if (key !== manifestKey && manifest.objects[key] === undefined)
      problems.push(`${key}: present but not listed in the manifest`);

  // The id covers the version its changes document compared with; versions made before that rule hash the content only.
  const changes =
    manifest.objects[keys.changes(v)] === undefined
      ? null
      : await site.json(keys.changes(v), ChangesPrevious).catch(() => null);
  const previous = changes?.previous?.version ?? null;
  const id = expectedVersionId(site.meta.week, v, manifest.objects, previous);
  // Versions made under earlier rules: openapi.json in the id, and before that the content only.
  const earlier = [
    expectedVersionId(site.meta.week, v, manifest.objects, previous, true, null),
    expectedVersionId(site.meta.week, v, manifest.objects, null, true, null),
  ];
  if (id !== v && !earlier.includes(v))
    problems.push(`version id ${v} does not match its content: the listed hashes give ${id}`);
  return { objects: listed.length, bytes, problems: problems.sort() };
}

async function composedManifest(site: AuditSite): Promise<ManifestT> {
  try {
    const stored = await readStoredVersion(site.raw, site.version);
    if (stored === null) throw new Error(`version ${site.version} is not complete`);
    return stored.manifest;
  } catch (err) {
    throw new StoreError(`${site.label}: ${(err as Error).message}`, keys.manifest(site.version), { cause: err });
  }
}
