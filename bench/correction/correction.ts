/**
 * Correction publish cost: a one-listing correction (one phone number changed) generated from the same inputs, then
 * published with publishSite to s3rver on loopback over the week it corrects; objects and bytes written, copies made
 * (counted on the server), seconds to the pointer flip; and the complete publish of the week beside it.
 */
import { makeGeneratedLive } from '../lib/generated-live.ts';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { listingIdOf } from '../../generator/inputs/ids.ts';
import { publishSite, type PublishReport } from '../../generator/publish/publish.ts';
import { s3Client } from '../../shim/store/s3-client.ts';
import {
  firmPackPrefix,
  FirmPack,
  keys,
  LISTING_ALPHABET,
  ListingBucket,
  listingPrefix,
  Pointer,
} from '../../shim/format/site-format.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { startS3rver } from '../lib/s3rver.ts';
import { measureProcess, type ProcessCost } from '../scale/scale.ts';

/** What one publish wrote. */
export interface PublishCost {
  mode: PublishReport['mode'];
  /** PUT requests the server received (objects, manifest or the layer's meta.json, pointer). */
  objectsWritten: number;
  /** Server-side copies the server received (0 by design). */
  copies: number;
  rawBytes: number;
  sentBytes: number;
  /** Seconds from the start of publishSite to the pointer write. */
  pointerSeconds: number | null;
  layerEntries: number;
  /** Bytes of the layer's meta.json (the map included), when layered. */
  metaBytes: number | null;
  /** Objects written by kind (first path segment under the version: firms, cells, listings, pages...). */
  byKind: Record<string, number>;
}

/** One site size measured. */
export interface CorrectionRun {
  offices: number;
  baseVersion: string;
  correctionVersion: string;
  /** Objects in the corrected version. */
  objects: number;
  correctedListing: string;
  /** How the week got into the bucket before the correction: published for real, or only its meta, manifest and pointer. */
  base: 'published' | 'seeded';
  full: PublishCost | null;
  /** A dry run of the complete publish (objects and bytes it would write) when the week was seeded. */
  fullPlanned: { objects: number; rawBytes: number } | null;
  correction: PublishCost;
  /** The corrected phone, read back through the shim from the bucket. */
  servedPhone: string | null;
  generate: ProcessCost | null;
}

/** The correction section's results. */
export interface CorrectionResults {
  runs: CorrectionRun[];
  errors: string[];
}

/** The first line of a file too large to read whole (a million places pass the longest string V8 makes). */
function firstLine(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n', 1)[0] as string;
  } finally {
    closeSync(fd);
  }
}

/** A data folder beside `dataDir` whose corrections.jsonl adds one phone change of the week's first place (links to the rest). */
function correctedInputs(dataDir: string, dir: string): { dir: string; placeId: string; phone: string; text: string } {
  const weeks = readdirSync(join(dataDir, 'weeks')).sort();
  const week = weeks[weeks.length - 1] as string;
  const first = firstLine(join(dataDir, 'weeks', week, 'places.jsonl'));
  const place = JSON.parse(first) as { place_id: string; phone: string | null };
  const phone = place.phone === '(909) 555-0199' ? '(909) 555-0198' : '(909) 555-0199';
  const existing = existsSync(join(dataDir, 'corrections.jsonl'))
    ? readFileSync(join(dataDir, 'corrections.jsonl'), 'utf8')
    : '';
  const line = JSON.stringify({
    action: 'update',
    place_id: place.place_id,
    reason: 'the firm wrote in with a new number',
    date: '2026-11-20',
    set: { phone },
  });
  const text = `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}${line}\n`;
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dataDir)) {
    if (name === 'corrections.jsonl' || existsSync(join(dir, name))) continue;
    symlinkSync(resolve(dataDir, name), join(dir, name));
  }
  writeFileSync(join(dir, 'corrections.jsonl'), text);
  return { dir, placeId: place.place_id, phone, text };
}

function costOf(
  r: PublishReport,
  puts: number,
  copies: number,
  metaBytes: number | null,
  keysWritten: string[],
): PublishCost {
  const byKind: Record<string, number> = {};
  for (const key of keysWritten) {
    const kind = key === keys.pointer ? 'pointer' : (key.split('/')[2] ?? key).replace(/\.json$/, '');
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return {
    mode: r.mode,
    objectsWritten: puts,
    copies,
    rawBytes: r.uploadedRawBytes,
    sentBytes: r.uploadedSentBytes,
    pointerSeconds: r.pointerMs === null ? null : r.pointerMs / 1000,
    layerEntries: r.layerEntries,
    metaBytes,
    byKind,
  };
}

/**
 * Measure one size: `baseSite` holds the week; the correction is generated into `<workDir>/site` (reused while its
 * corrections and base version match). `publishBase` false seeds the bucket with the week's meta.json, manifest.json
 * and pointer only (all a correction's plan reads), for sizes whose complete publish to s3rver takes too long.
 */
export async function measureCorrection(opts: {
  offices: number;
  dataDir: string;
  baseSite: string;
  workDir: string;
  publishBase: boolean;
  onLine: (line: string) => void;
}): Promise<CorrectionRun> {
  const say = opts.onLine;
  const baseVersion = Pointer.parse(JSON.parse(readFileSync(join(opts.baseSite, keys.pointer), 'utf8'))).version;
  const inputs = correctedInputs(opts.dataDir, join(opts.workDir, 'data'));
  const site = join(opts.workDir, 'site');
  const marker = join(opts.workDir, 'bench-correction.json');
  const params = JSON.stringify({ baseVersion, corrections: inputs.text });
  let generate: ProcessCost | null = null;
  if (!(existsSync(marker) && readFileSync(marker, 'utf8') === params && existsSync(join(site, keys.pointer)))) {
    rmSync(site, { recursive: true, force: true });
    say(`generating the corrected week (${inputs.placeId}: phone ${inputs.phone}) into ${site}`);
    generate = await measureProcess(
      'generator/cli.ts',
      ['--data', inputs.dir, '--out', site],
      (l) => say(`  [generate corrected] ${l}`),
      ['--max-old-space-size=6000'],
    );
    if (!generate.ok) throw new Error(`generating the corrected week failed: ${generate.error ?? ''}`);
    await makeGeneratedLive(site, generate.stdout);
    writeFileSync(marker, params);
  }
  const correctionVersion = Pointer.parse(JSON.parse(readFileSync(join(site, keys.pointer), 'utf8'))).version;

  const server = await startS3rver({ buckets: ['site'] });
  try {
    const common = { bucket: 'site', ...server.clientOptions, concurrency: 32, log: (l: string) => say(`  [${l}]`) };
    const counted = async (
      run: () => Promise<PublishReport>,
    ): Promise<{ r: PublishReport; puts: number; copies: number }> => {
      const before = { ...server.requests };
      const r = await run();
      return {
        r,
        puts: (server.requests.PUT ?? 0) - (before.PUT ?? 0),
        copies: (server.requests.COPY ?? 0) - (before.COPY ?? 0),
      };
    };
    let full: PublishCost | null = null;
    let fullPlanned: CorrectionRun['fullPlanned'] = null;
    if (opts.publishBase) {
      say(`complete publish of the week ${baseVersion}`);
      const { r, puts, copies } = await counted(() => publishSite({ ...common, siteDir: opts.baseSite }));
      full = costOf(r, puts, copies, null, []);
    } else {
      say(
        `planning (dry run) the complete publish of the week ${baseVersion}, then seeding the bucket with its meta.json, manifest.json and pointer`,
      );
      const plan = await publishSite({ ...common, siteDir: opts.baseSite, dryRun: true });
      fullPlanned = { objects: (plan.plannedPuts ?? []).length, rawBytes: plan.uploadedRawBytes };
      const client = s3Client(server.clientOptions);
      for (const key of [keys.meta(baseVersion), keys.manifest(baseVersion), keys.pointer]) {
        await client.send(
          new PutObjectCommand({
            Bucket: 'site',
            Key: key,
            Body: readFileSync(join(opts.baseSite, key)),
            ContentType: 'application/json',
          }),
        );
      }
    }
    say(`publishing the correction ${correctionVersion}`);
    const written: string[] = [];
    const { r, puts, copies } = await counted(() =>
      publishSite({ ...common, siteDir: site, onObject: (e) => void written.push(e.key) }),
    );
    const store = new S3Store({ bucket: 'site', ...server.clientOptions });
    const meta = await store.get(keys.meta(correctionVersion));
    const correction = costOf(r, puts, copies, r.mode === 'layered' && meta ? meta.byteLength : null, [
      ...written,
      ...(r.mode === 'layered' ? [keys.meta(correctionVersion)] : []),
      keys.pointer,
    ]);
    const listing = listingIdOf(inputs.placeId);
    // Read the way the shim does (through the layer's map, each object checked against the hash its parent records),
    // but only the listings bucket and the firm pack: a seeded week has no other objects, and the correction rewrote both.
    const reader = await createSiteSource(store).current();
    const length = reader.meta.listing_prefix_length;
    const bucket = await reader.json(keys.listings(correctionVersion, listingPrefix(listing, length)), ListingBucket);
    const prefix = firmPackPrefix(listing, length);
    const packSha = bucket?.firms_sha256[LISTING_ALPHABET.indexOf(prefix.slice(length))];
    const pack = await reader.json(keys.firmPack(correctionVersion, prefix), FirmPack, packSha);
    const firm = pack?.documents.find((d) => d.listing_id === listing);
    return {
      offices: opts.offices,
      baseVersion,
      correctionVersion,
      objects: r.objects,
      correctedListing: listing,
      base: opts.publishBase ? 'published' : 'seeded',
      full,
      fullPlanned,
      correction,
      servedPhone: firm?.office.phone ?? null,
      generate,
    };
  } finally {
    await server.stop();
  }
}
