/**
 * Atomic publish to a real S3-protocol server (s3rver on loopback): every object reads back byte for byte through
 * S3Store, republishing uploads nothing, a changed site uploads only what changed, and a publish that stops halfway
 * leaves the previous version serving.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidationPathsFor } from '../generator/publish/invalidation.ts';
import { publishSite, type PublishOptions } from '../generator/publish/publish.ts';
import { s3Client } from '../shim/store/s3-client.ts';
import { readStoredVersion } from '../generator/site/bucket-version.ts';
import { generatedMetaBytes, resolveLayered } from '../shim/format/layers.ts';
import { keys, type ManifestT } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { S3RVER_ENV } from '../bench/lib/s3rver.ts';
import { useS3rver } from './helpers/s3rver.ts';

const BUCKET = 'site';
const PREFIX = 'prod/';
const B32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** A listing id (l_ + 16 base32 characters) for index i. */
const id = (i: number): string => `l_${'a'.repeat(14)}${B32[i >> 5]}${B32[i & 31]}`;
/** The firm pack holding listing i alone here (firms/<prefix>.json: every listing id starting l_<prefix>). */
const pack = (i: number): string => id(i).slice(2);

type Objects = Map<string, Uint8Array>;

/** The objects of a small but realistic site version, keyed relative to the version root. */
function baseObjects(): Objects {
  const o: Objects = new Map();
  const json = (v: unknown): Uint8Array => Buffer.from(`${JSON.stringify(v)}\n`);
  o.set('meta.json', json({ schema_version: 1, week: '2026-W46' }));
  o.set(
    'openapi.json',
    json({
      openapi: '3.1.0',
      paths: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`/p${i}`, { get: { summary: `operation ${i}` } }]),
      ),
    }),
  );
  o.set(
    'coverage.json',
    json({
      week_of: '2026-11-09',
      metros: Array.from({ length: 27 }, (_, i) => ({ slug: `metro-${i}`, firms: i * 10 })),
    }),
  );
  o.set('shards/index.json', json({ cells: { 5: { '85283473fffffff': [40, 41000] } } }));
  o.set(
    'shards/5/85283473fffffff.json',
    json({
      offices: Array.from({ length: 300 }, (_, i) => ({
        listing_id: id(i % 30),
        name: `Office ${i}`,
        lat: 34 + i / 1000,
      })),
    }),
  );
  for (let i = 0; i < 24; i++) {
    const big = i % 4 !== 0; // most firm documents exceed 1 KiB, some do not
    o.set(
      `firms/${pack(i)}.json`,
      json({
        listing_id: id(i),
        name: `Firm ${i}`,
        other_offices: big ? Array.from({ length: 12 }, (_, j) => ({ city: `City ${j}`, n: i })) : [],
      }),
    );
  }
  // Incompressible and over 1 KiB: must be stored as is.
  o.set('gazetteer/zip/100.json', randomBytes(4096));
  o.set('gazetteer/city/NY/n.json', json({ cities: { 'new york': { lat: 40.7, lng: -74 } } }));
  return o;
}

/** Write a site folder the way the generator lays it out: v/<version>/..., its manifest, then current.json. */
async function writeSite(
  dir: string,
  week: string,
  objects: Objects,
  forceVersion?: string,
): Promise<{ version: string; manifest: ManifestT }> {
  await rm(dir, { recursive: true, force: true });
  const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
  const rels = [...objects.keys()].sort();
  const version =
    forceVersion ??
    `${week}-${sha(Buffer.from(rels.map((r) => `${r}\t${sha(objects.get(r)!)}\n`).join(''))).slice(0, 10)}`;
  const manifest: ManifestT = { schema_version: 1, version, objects: {} };
  for (const rel of rels) {
    const key = keys.root(version) + rel;
    const bytes = objects.get(rel)!;
    manifest.objects[key] = { sha256: sha(bytes), bytes: bytes.byteLength };
    await mkdir(dirname(join(dir, key)), { recursive: true });
    await writeFile(join(dir, key), bytes);
  }
  await writeFile(join(dir, keys.manifest(version)), `${JSON.stringify(manifest)}\n`);
  await writeFile(join(dir, keys.pointer), `${JSON.stringify({ schema_version: 1, version, week })}\n`);
  return { version, manifest };
}

const server = useS3rver({ buckets: [BUCKET] });
let work: string;
let store: S3Store;
const opts = (siteDir: string, extra: Partial<PublishOptions> = {}): PublishOptions => ({
  bucket: BUCKET,
  prefix: PREFIX,
  siteDir,
  quiet: true,
  ...server.clientOptions,
  ...extra,
});
const snapshot = (): Record<string, number> => ({ ...server.requests });
const delta = (before: Record<string, number>, kind: string): number =>
  (server.requests[kind] ?? 0) - (before[kind] ?? 0);

/**
 * Every object of the site folder's version reads back through S3Store with the same bytes, a layered version's
 * through the map in its meta.json (and its meta.json, without the map, as generated); the version's manifest as
 * written, or composed from its base's for a layer.
 */
async function expectServes(siteDir: string, manifest: ManifestT): Promise<void> {
  const reader = new S3Store({ bucket: BUCKET, prefix: PREFIX, ...server.clientOptions });
  const version = manifest.version;
  const stored = await readStoredVersion(reader, version);
  expect(stored?.manifest.objects).toEqual(manifest.objects);
  for (const key of Object.keys(manifest.objects)) {
    const at = resolveLayered(version, stored?.layers ?? undefined, key);
    expect(at, key).not.toBeNull();
    let got = await reader.get(at!);
    expect(got, key).not.toBeNull();
    if (key === keys.meta(version) && stored?.layers) got = generatedMetaBytes(got!);
    expect(Buffer.from(got!).equals(await readFile(join(siteDir, key))), key).toBe(true);
  }
}

async function servedVersion(): Promise<string | null> {
  const bytes = await new S3Store({ bucket: BUCKET, prefix: PREFIX, ...server.clientOptions }).get(keys.pointer);
  return bytes ? (JSON.parse(Buffer.from(bytes).toString()) as { version: string }).version : null;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'publish-test-'));
  store = new S3Store({ bucket: BUCKET, prefix: PREFIX, ...server.clientOptions });
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('publishSite on s3rver', () => {
  const A = baseObjects();
  const B = new Map(A);
  let siteA: { version: string; manifest: ManifestT };
  let siteB: { version: string; manifest: ManifestT };

  it('publishes a site: every manifest object reads back byte for byte, the pointer names the version', async () => {
    siteA = await writeSite(join(work, 'a'), '2026-W46', A);
    const before = snapshot();
    const r = await publishSite(opts(join(work, 'a')));
    expect(r).toMatchObject({
      version: siteA.version,
      previousVersion: null,
      objects: A.size,
      uploaded: A.size,
      copied: 0,
      skipped: 0,
      manifestWritten: true,
      pointerWritten: true,
    });
    expect(delta(before, 'PUT')).toBe(A.size + 2);
    await expectServes(join(work, 'a'), siteA.manifest);
    expect(await servedVersion()).toBe(siteA.version);
    // Nothing was cached before the first publish behind this distribution: invalidate everything once.
    expect(r.invalidationPaths).toEqual(['/*']);
    expect(r.uploadedSentBytes).toBeLessThan(r.uploadedRawBytes);
  });

  it('stores objects with the right Content-Type, Cache-Control, Content-Encoding and sha256 metadata', async () => {
    const client = s3Client(server.clientOptions);
    const head = (key: string) => client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: PREFIX + key }));
    const shard = await head(keys.root(siteA.version) + 'shards/5/85283473fffffff.json');
    expect(shard).toMatchObject({
      ContentType: 'application/json',
      CacheControl: 'public, max-age=31536000, immutable',
      ContentEncoding: 'gzip',
    });
    expect(shard.Metadata?.sha256).toBe(
      siteA.manifest.objects[keys.root(siteA.version) + 'shards/5/85283473fffffff.json']!.sha256,
    );
    const openapi = await head(keys.openapi(siteA.version));
    expect(openapi.ContentType).toBe('application/json');
    const small = await head(keys.meta(siteA.version));
    expect(small.ContentEncoding).toBeUndefined();
    const incompressible = await head(keys.zip(siteA.version, '100'));
    expect(incompressible.ContentEncoding).toBeUndefined();
    expect(incompressible.ContentLength).toBe(4096);
    const pointer = await head(keys.pointer);
    expect(pointer).toMatchObject({ ContentType: 'application/json', CacheControl: 'no-cache' });
  });

  it('publishing the same site again uploads nothing', async () => {
    const before = snapshot();
    const r = await publishSite(opts(join(work, 'a')));
    expect(r).toMatchObject({
      uploaded: 0,
      copied: 0,
      skipped: A.size,
      manifestWritten: false,
      pointerWritten: false,
      invalidationPaths: [],
    });
    expect(delta(before, 'PUT')).toBe(0);
    expect(delta(before, 'COPY')).toBe(0);
  });

  it('publishing a changed site uploads only the changed objects as a layer, copies nothing, and invalidates what changed', async () => {
    B.set(`firms/${pack(3)}.json`, Buffer.from(`${JSON.stringify({ listing_id: id(3), name: 'Firm 3, renamed' })}\n`));
    B.delete(`firms/${pack(4)}.json`);
    B.set(`firms/${pack(25)}.json`, Buffer.from(`${JSON.stringify({ listing_id: id(25), name: 'Firm 25, new' })}\n`));
    B.set('coverage.json', Buffer.from(`${JSON.stringify({ week_of: '2026-11-16', metros: [] })}\n`));
    siteB = await writeSite(join(work, 'b'), '2026-W47', B);
    const before = snapshot();
    const r = await publishSite(opts(join(work, 'b')));
    // The 3 changed objects and the layer's meta.json; firms/<4> is marked absent in the map.
    expect(r).toMatchObject({
      version: siteB.version,
      previousVersion: siteA.version,
      mode: 'layered',
      uploaded: 4,
      reused: B.size - 4,
      copied: 0,
      skipped: 0,
      layerEntries: 4,
      manifestWritten: false,
      pointerWritten: true,
    });
    expect(delta(before, 'PUT')).toBe(3 + 2); // the changed objects, the meta.json with the map, the pointer
    expect(delta(before, 'COPY')).toBe(0);
    await expectServes(join(work, 'b'), siteB.manifest);
    await expectServes(join(work, 'a'), siteA.manifest); // the previous version stays readable
    expect(await servedVersion()).toBe(siteB.version);
    expect(new Set(r.invalidationPaths)).toEqual(
      new Set([
        '/current.json',
        '/v1/attorneys*',
        '/v1/coverage',
        '/openapi.json',
        '/',
        ...[3, 4, 25].flatMap((i) => [`/v1/firms/${id(i)}*`, `/r/${id(i)}*`]),
      ]),
    );
  });

  it('a publish that fails halfway leaves the previous version serving, and a rerun resumes it', async () => {
    const C = new Map(B);
    for (let i = 5; i < 13; i++)
      C.set(
        `firms/${pack(i)}.json`,
        Buffer.from(
          `${JSON.stringify({ listing_id: id(i), name: `Firm ${i}`, corrected: true, pad: 'x'.repeat(2000) })}\n`,
        ),
      );
    const siteC = await writeSite(join(work, 'c'), '2026-W47', C);
    let uploads = 0;
    const failing = publishSite(
      opts(join(work, 'c'), {
        onObject: (e) => {
          if (e.action === 'upload' && ++uploads === 3) throw new Error('injected failure after 3 uploads');
        },
      }),
    );
    await expect(failing).rejects.toThrow(/injected failure/);
    expect(await servedVersion()).toBe(siteB.version);
    await expectServes(join(work, 'b'), siteB.manifest);
    expect(await store.get(keys.manifest(siteC.version))).toBeNull();
    expect(await store.get(keys.meta(siteC.version))).toBeNull();

    const before = snapshot();
    const r = await publishSite(opts(join(work, 'c')));
    expect(r.mode).toBe('layered');
    expect(r.uploaded + r.reused + r.skipped).toBe(C.size);
    expect(r.skipped).toBeGreaterThanOrEqual(3);
    expect(r.uploaded).toBeLessThanOrEqual(8 - 3 + 1);
    expect(delta(before, 'PUT')).toBe(r.uploaded + 1);
    expect(delta(before, 'COPY')).toBe(0);
    expect(await servedVersion()).toBe(siteC.version);
    await expectServes(join(work, 'c'), siteC.manifest);
  });

  it('refuses a site whose files do not match its manifest, before moving the pointer', async () => {
    const served = await servedVersion();
    const D = new Map(B);
    D.set('meta.json', Buffer.from('{"schema_version":1,"week":"2026-W48"}\n'));
    const siteD = await writeSite(join(work, 'd'), '2026-W48', D);
    await writeFile(join(work, 'd', keys.meta(siteD.version)), 'tampered after generation\n');
    await expect(publishSite(opts(join(work, 'd')))).rejects.toThrow(/does not match the manifest/);
    expect(await servedVersion()).toBe(served);
  });

  it('refuses to overwrite a published version with different content', async () => {
    const E = new Map(B);
    E.set('meta.json', Buffer.from('{"different":true}\n'));
    await writeSite(join(work, 'e'), '2026-W47', E, siteB.version);
    const before = snapshot();
    await expect(publishSite(opts(join(work, 'e')))).rejects.toThrow(/immutable/);
    expect(delta(before, 'PUT') + delta(before, 'COPY')).toBe(0);
  });

  it('a dry run reads the bucket and writes nothing', async () => {
    const served = await servedVersion();
    const F = new Map(B);
    F.set('openapi.json', Buffer.from('{"openapi":"3.1.0","changed":true}\n'));
    await writeSite(join(work, 'f'), '2026-W48', F);
    const before = snapshot();
    const r = await publishSite(opts(join(work, 'f'), { dryRun: true }));
    expect(r).toMatchObject({ dryRun: true, pointerWritten: false, manifestWritten: false });
    expect(r.uploaded).toBeGreaterThan(0);
    expect(r.invalidationPaths).toContain('/openapi.json');
    expect(delta(before, 'PUT') + delta(before, 'COPY')).toBe(0);
    expect(await servedVersion()).toBe(served);
  });

  it('can store everything uncompressed, and S3Store reads both forms the same', async () => {
    const r = await publishSite(opts(join(work, 'a'), { prefix: 'raw/', gzip: false }));
    expect(r).toMatchObject({ uploaded: A.size, gzipped: 0 });
    expect(r.uploadedSentBytes).toBe(r.uploadedRawBytes);
    const raw = new S3Store({ bucket: BUCKET, prefix: 'raw/', ...server.clientOptions });
    for (const key of Object.keys(siteA.manifest.objects)) {
      expect(Buffer.from((await raw.get(key))!).equals(Buffer.from((await store.get(key))!)), key).toBe(true);
    }
  });

  it('asks CloudFront to invalidate exactly the printed paths once the pointer is written', async () => {
    const requests: { url: string; body: string }[] = [];
    // A recording stand-in for the CloudFront API on loopback (there is no local CloudFront).
    const cf = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests.push({ url: req.url ?? '', body });
        res.writeHead(201, { 'content-type': 'text/xml', location: 'https://cloudfront.example/inv/I1' });
        res.end(
          '<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>I1</Id><Status>InProgress</Status><CreateTime>2026-11-16T00:00:00Z</CreateTime></Invalidation>',
        );
      });
    });
    await new Promise<void>((resolve) => cf.listen(0, '127.0.0.1', () => resolve()));
    try {
      const G = new Map(B);
      G.set(
        `firms/${pack(7)}.json`,
        Buffer.from(`${JSON.stringify({ listing_id: id(7), name: 'Firm 7, corrected same day' })}\n`),
      );
      await writeSite(join(work, 'g'), '2026-W47', G);
      const cloudFront = new CloudFrontClient({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${(cf.address() as AddressInfo).port}`,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      const r = await publishSite(
        opts(join(work, 'g'), { distributionId: 'EDIST123', cloudFront, invalidationDelayMs: 300 }),
      );
      expect(r.invalidationId).toBe('I1');
      // Not before function instances could have reread the pointer, so no old answer outlives the invalidation.
      expect(r.invalidationAtMs! - r.pointerMs!).toBeGreaterThanOrEqual(300);
      expect(r.invalidationPaths).toEqual(
        expect.arrayContaining(['/current.json', '/v1/attorneys*', `/v1/firms/${id(7)}*`, `/r/${id(7)}*`]),
      );
      expect(requests).toHaveLength(1);
      expect(requests[0]!.url).toMatch(/\/distribution\/EDIST123\/invalidation$/);
      const sent = [...requests[0]!.body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => m[1]);
      expect(sent).toEqual(r.invalidationPaths);
    } finally {
      await new Promise<void>((resolve) => cf.close(() => resolve()));
    }
  });

  it('the CLI prints help, and a dry run prints the plan as JSON', { timeout: 60_000 }, async () => {
    const run = promisify(execFile);
    const cli = ['generator/publish/publish-cli.ts'];
    const help = await run(process.execPath, [...cli, '--help']);
    expect(help.stdout).toMatch(/Usage: npm run publish -- --bucket/);
    const env = { ...process.env, ...S3RVER_ENV };
    const dryRun = [
      ...cli,
      '--bucket',
      BUCKET,
      '--prefix',
      PREFIX,
      '--endpoint',
      server.endpoint,
      '--site',
      join(work, 'a'),
    ];
    const out = await run(process.execPath, [...dryRun, '--dry-run', '--json', '--quiet'], { env });
    const report = JSON.parse(out.stdout) as {
      version: string;
      dryRun: boolean;
      uploaded: number;
      copied: number;
      reused: number;
      skipped: number;
    };
    expect(report).toMatchObject({ version: siteA.version, dryRun: true, copied: 0 });
    expect(report.uploaded + report.reused + report.skipped).toBe(A.size);
    // Without --json a dry run prints the plan: one line, each key it would write, the paths; the bucket is unchanged.
    const before = snapshot();
    const text = await run(process.execPath, [...dryRun, '--dry-run', '--quiet'], { env });
    const lines = text.stdout.trim().split('\n');
    // The CLI is a step of release: it uploads a version and never writes the pointer nor invalidates.
    expect(lines[0]).toMatch(new RegExp(`^plan for ${siteA.version}: .*copy none; pointer unchanged$`));
    expect(lines).not.toContain('put current.json');
    expect(lines.filter((l) => l.startsWith('put ')).length).toBe(report.uploaded);
    expect(lines.filter((l) => l.startsWith('invalidate '))).toEqual([]);
    expect(delta(before, 'PUT') + delta(before, 'COPY')).toBe(0);
    await expect(run(process.execPath, [...cli, '--site', join(work, 'a')])).rejects.toMatchObject({ code: 2 });
  });
});

describe('invalidationPathsFor', () => {
  const manifest = (version: string, ids: number[], coverage = 'c1'): ManifestT => ({
    schema_version: 1,
    version,
    objects: Object.fromEntries([
      [`v/${version}/coverage.json`, { sha256: coverage, bytes: 1 }],
      ...ids.map((i) => [`v/${version}/firms/${pack(i)}.json`, { sha256: `s${i}`, bytes: 1 }]),
    ]),
  });

  it('lists each changed firm pack, and switches to wildcards when there are many', () => {
    const before = manifest('A', [1, 2, 3]);
    expect(invalidationPathsFor(before, 'A', manifest('B', [1, 2, 3]), 'B')).toEqual([
      '/current.json',
      '/v1/attorneys*',
      '/v1/coverage',
      '/openapi.json',
      '/',
    ]);
    expect(invalidationPathsFor(before, 'A', manifest('B', [1, 2], 'c2'), 'B')).toEqual([
      '/current.json',
      '/v1/attorneys*',
      '/v1/coverage',
      '/openapi.json',
      '/',
      `/v1/firms/${id(3)}*`,
      `/r/${id(3)}*`,
    ]);
    const many = manifest(
      'B',
      Array.from({ length: 150 }, (_, i) => i + 10),
    );
    const paths = invalidationPathsFor(before, 'A', many, 'B');
    expect(paths).toEqual([
      '/current.json',
      '/v1/attorneys*',
      '/v1/coverage',
      '/openapi.json',
      '/',
      '/v1/firms/*',
      '/r/*',
    ]);
  });

  it('a correction that changes no count still invalidates /v1/coverage, whose body names the version', () => {
    const before = manifest('A', [1, 2, 3]);
    const phoneFix = manifest('B', [1, 2, 3]);
    phoneFix.objects[`v/B/firms/${pack(2)}.json`] = { sha256: 'new phone', bytes: 1 };
    expect(invalidationPathsFor(before, 'A', phoneFix, 'B')).toContain('/v1/coverage');
  });
});

describe('invalidationPathsFor', () => {
  const manifest = (version: string, objects: Record<string, string>) => ({
    schema_version: 1 as const,
    version,
    objects: Object.fromEntries(
      Object.entries(objects).map(([rel, sha]) => [`v/${version}/${rel}`, { sha256: sha, bytes: 1 }]),
    ),
  });

  it('names the cached paths of what changed: documents, listings, pages for people and problem pages', () => {
    const before = manifest('a', {
      'coverage.json': '1',
      'openapi.json': '1',
      'firms/aa.json': '1',
      'pages/index.json': '1',
      'pages/docs.json': '1',
      'pages/corrections.json': '1',
      'pages/metros/chicago.json': '1',
      'pages/assets/site.css.json': '1',
      'problems/not_found.html': '1',
    });
    const same = manifest(
      'b',
      Object.fromEntries(Object.entries(before.objects).map(([k, e]) => [k.slice('v/a/'.length), e.sha256])),
    );
    expect(invalidationPathsFor(before, 'a', same, 'b')).toEqual([
      '/current.json',
      '/v1/attorneys*',
      '/v1/coverage',
      '/openapi.json',
      '/',
    ]);
    const next = manifest('b', {
      'coverage.json': '2',
      'openapi.json': '1',
      'firms/aa.json': '2',
      'pages/index.json': '2',
      'pages/docs.json': '1',
      'pages/corrections.json': '2',
      'pages/metros/chicago.json': '2',
      'pages/assets/site.css.json': '1',
      'problems/not_found.html': '2',
    });
    expect(invalidationPathsFor(before, 'a', next, 'b')).toEqual([
      '/current.json',
      '/v1/attorneys*',
      '/v1/coverage',
      '/openapi.json',
      '/',
      '/v1/firms/l_aa*',
      '/r/l_aa*',
      '/corrections',
      '/metros/*',
      '/problems/*',
    ]);
  });
});
