/**
 * `audit mirror`: a copy of the served version saved from the public service, so an auditor can diff next week's
 * against it (the service answers only the version it serves now). Every object the served manifest lists is fetched,
 * checked against the manifest's sha256 and size, and written under `<out>/v/<version>/`; then the manifest and, last,
 * a `current.json` naming the version, so the folder opens like any site folder (audit verify, measure, diff --site).
 * A layered version's meta.json is saved as generated (without its map of the base, which the copy does not need).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { generatedMetaBytes } from '../../shim/format/layers.ts';
import { sha256Hex } from '../../shim/format/integrity.ts';
import { parseObject } from '../../shim/format/site-json.ts';
import { keys, Manifest, Meta, Pointer } from '../../shim/format/site-format.ts';
import { StoreError } from '../../shim/contract/errors.ts';
import { HttpStore } from '../site/http-store.ts';
import { mapPool } from '../write/pool.ts';
import { progressEvery } from '../write/progress.ts';

/** What to mirror and where. */
export interface MirrorOptions {
  url: string;
  out: string;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  log?: (line: string) => void;
}

/** What mirror did. */
export interface MirrorReport {
  url: string;
  out: string;
  version: string;
  week: string;
  objects: number;
  /** Objects already in the folder with the listed hash (an interrupted mirror run again). */
  kept: number;
  bytes: number;
  /** Objects whose bytes did not match the manifest (not written); the copy is incomplete when any. */
  problems: string[];
}

/** Write `bytes` to `path` through a temporary file, so an interrupted run never leaves a partial object. */
async function writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}

async function sameBytes(path: string, sha256: string): Promise<boolean> {
  try {
    return sha256Hex(await readFile(path)) === sha256;
  } catch {
    return false;
  }
}

/** Save the version the service at `url` serves now into the folder `out`. */
export async function mirror(opts: MirrorOptions): Promise<MirrorReport> {
  const store = new HttpStore(opts.url, {
    onWait: (s, status) => opts.log?.(`mirror: ${status} from the service, waiting ${s} s (Retry-After)`),
  });
  const read = async (key: string): Promise<Uint8Array> => {
    const bytes = await store.get(key);
    if (bytes === null)
      throw new StoreError(`${opts.url} has no ${key}: is this the directory service's base URL?`, key);
    return bytes;
  };
  const pointer = parseObject(await read(keys.pointer), keys.pointer, Pointer);
  const v = pointer.version;
  let metaBytes = await read(keys.meta(v));
  const meta = parseObject(metaBytes, keys.meta(v), Meta);
  if (pointer.meta_sha256 !== undefined && sha256Hex(metaBytes) !== pointer.meta_sha256)
    throw new StoreError(`${keys.meta(v)} does not match the sha256 current.json records for it`, keys.meta(v));
  if (meta.layers !== undefined) metaBytes = generatedMetaBytes(metaBytes);
  const manifestBytes = await read(keys.manifest(v));
  const manifest = parseObject(manifestBytes, keys.manifest(v), Manifest);
  if (manifest.version !== v)
    throw new StoreError(`${keys.manifest(v)} names version ${manifest.version}`, keys.manifest(v));

  const entries = Object.entries(manifest.objects).sort(([a], [b]) => (a < b ? -1 : 1));
  const report: MirrorReport = {
    url: opts.url,
    out: opts.out,
    version: v,
    week: meta.week,
    objects: entries.length,
    kept: 0,
    bytes: 0,
    problems: [],
  };
  const progress = progressEvery(opts.log);
  let done = 0;
  await mapPool(entries, opts.concurrency ?? 4, async ([key, want]) => {
    const path = join(opts.out, ...key.split('/'));
    if (!key.startsWith(keys.root(v)))
      report.problems.push(`${keys.manifest(v)} lists ${key}, outside ${keys.root(v)}`);
    else if (await sameBytes(path, want.sha256)) report.kept++;
    else {
      const bytes = key === keys.meta(v) ? metaBytes : await read(key);
      const sha = sha256Hex(bytes);
      if (sha !== want.sha256 || bytes.byteLength !== want.bytes)
        report.problems.push(
          `${key}: sha256 ${sha} (${bytes.byteLength} bytes), the manifest says ${want.sha256} (${want.bytes} bytes)`,
        );
      else {
        await writeAtomic(path, bytes);
        report.bytes += bytes.byteLength;
      }
    }
    progress(++done, entries.length, 'objects saved');
  });
  report.problems.sort();
  if (report.problems.length > 0) return report;
  await writeAtomic(join(opts.out, ...keys.manifest(v).split('/')), manifestBytes);
  const saved = { schema_version: 1, version: v, week: pointer.week, meta_sha256: sha256Hex(metaBytes) };
  await writeAtomic(join(opts.out, keys.pointer), new TextEncoder().encode(`${JSON.stringify(saved)}\n`));
  return report;
}

/** The text report of a mirror run. */
export function formatMirror(r: MirrorReport): string {
  const lines = [
    `mirror of ${r.url}: version ${r.version} (week ${r.week}) into ${r.out}`,
    `  ${r.objects} objects listed, ${r.objects - r.kept - r.problems.length} fetched (${r.bytes} bytes), ${r.kept} already saved`,
  ];
  if (r.problems.length === 0) lines.push(`  complete: open it with --site ${r.out} (audit verify, measure, diff)`);
  else
    lines.push(
      `  ${r.problems.length} object(s) did not match the manifest; current.json not written:`,
      ...r.problems.map((p) => `  ${p}`),
    );
  return `${lines.join('\n')}\n`;
}
