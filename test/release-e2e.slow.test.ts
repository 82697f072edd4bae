/**
 * End to end, for a site folder and for a loopback bucket (s3rver): a weekly release, a correction, a firm's standing
 * removal, a second week, a rollback and a refused one, each through `release`; after the removal no URL the real server answers
 * returns the removed firm (searches, firm documents, redirects, counts, changes, pages, `/v/...` paths).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listingIdOf } from '../generator/inputs/ids.ts';
import { release, type ReleaseOptions, type ReleaseRecord } from '../generator/release/release.ts';
import { addFollowingWeek, copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { useS3rver } from './helpers/s3rver.ts';
import { startTestServer } from './helpers/server.ts';
import { loadCloudFrontFunction, viewerRequest } from '../bench/lib/cloudfront-runtime.ts';
import { viewerRequestCode } from '../infra/edge-function.ts';
import { VERSION_OBJECT_PATHS } from '../infra/cdn.ts';

const ALPHA = ['p1', 'p2', 'p3'].map(listingIdOf);
/** The firm pack that held the first of them (listing prefix length 1 at this size: packs of two characters). */
const ALPHA_PACK = `firms/${(ALPHA[0] ?? '').slice(2, 4)}.json`;
/** Strings only the Alpha firm's listings carry (its name, website and street addresses). */
const ALPHA_TEXT = [/alphalaw/i, /Alpha Injury Law/, /Alpha Law Group/, /P[123] Main St/];
const PAGES = ['/', '/docs', '/corrections', '/metros/alpha', '/metros/beta'];
const METROS = ['alpha', 'beta'];
const KVS_ID = 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

const s3 = useS3rver({ credentialsInEnv: true });
afterAll(removeTempDirs);

interface Seen {
  version: string | null;
  firms: Record<string, number>;
  redirects: Record<string, number>;
  searchIds: string[];
  offices: unknown;
  leaks: string[];
  versionPaths: Record<string, number>;
  /** Status and whether the body names an Alpha listing id, per measurement path, as CloudFront's route answers it. */
  measurement: Record<string, { status: number; namesAlpha: boolean }>;
}

/** What a fresh real server over the target answers about the Alpha firm. */
async function look(env: Record<string, string>, oldVersions: readonly string[]): Promise<Seen> {
  const server = await startTestServer({ PUBLIC_BASE_URL: 'https://directory.example', ...env });
  try {
    const get = (path: string, accept = 'application/json'): Promise<Response> =>
      fetch(server.url + path, { redirect: 'manual', headers: { accept } });
    const seen: Seen = {
      version: null,
      firms: {},
      redirects: {},
      searchIds: [],
      offices: null,
      leaks: [],
      versionPaths: {},
      measurement: {},
    };
    const bodies: [string, string][] = [];
    for (const id of ALPHA) {
      const f = await get(`/v1/firms/${id}`);
      seen.firms[id] = f.status;
      bodies.push([`/v1/firms/${id}`, await f.text()]);
      const r = await get(`/r/${id}`);
      seen.redirects[id] = r.status;
      await r.body?.cancel();
    }
    for (const q of [
      'lat=41.88&lng=-87.63&radius_miles=50&limit=25',
      'zip=60601&limit=25',
      'location=Evanston,%20IL&limit=25',
    ]) {
      const s = await get(`/v1/attorneys?${q}`);
      expect(s.status, q).toBe(200);
      seen.version = s.headers.get('directory-version');
      const text = await s.text();
      bodies.push([q, text]);
      seen.searchIds.push(
        ...(JSON.parse(text) as { results: { listing_id: string }[] }).results.map((r) => r.listing_id),
      );
    }
    const coverage = await get('/v1/coverage');
    const coverageText = await coverage.text();
    bodies.push(['/v1/coverage', coverageText]);
    seen.offices = (JSON.parse(coverageText) as { totals?: { offices?: number } }).totals?.offices ?? null;
    bodies.push(['/v1/changes', await (await get('/v1/changes')).text()]);
    // The OpenAPI examples are answers of the served version: after the removal they never name the firm.
    bodies.push(['/openapi.json', await (await get('/openapi.json')).text()]);
    for (const p of PAGES) bodies.push([p, await (await get(p, 'text/html')).text()]);
    for (const v of oldVersions) {
      for (const key of [`/v/${v}/${ALPHA_PACK}`, `/v/${v}/meta.json`, `/v/${v}/cells/index.json`]) {
        const r = await get(key);
        seen.versionPaths[key] = r.status;
        bodies.push([key, await r.text()]);
      }
    }
    // The measurement data, through CloudFront's behaviour for it: the viewer-request function, then the function (the
    // server). The served version's is answered; an older one's never, since it may name listings removed since.
    const edge = loadCloudFrontFunction(
      viewerRequestCode(KVS_ID),
      KVS_ID,
      new Map([[`salt-${new Date().toISOString().slice(0, 10)}`, 'ab'.repeat(32)]]),
    );
    for (const v of [...oldVersions, seen.version ?? '']) {
      for (const metro of METROS) {
        const path = `/v/${v}/measurement/${metro}.json`;
        expect(
          VERSION_OBJECT_PATHS.some((p) => new RegExp(`^${p.replaceAll('*', '.+')}$`).test(path)),
          path,
        ).toBe(true);
        const out = await edge.handler(viewerRequest(path, '', { host: 'directory.example' }));
        const r = await get(out.uri);
        const text = await r.text();
        seen.measurement[path] = { status: r.status, namesAlpha: ALPHA.some((id) => text.includes(id)) };
        if (v !== seen.version) bodies.push([path, text]);
      }
    }
    // A 404 names the id it was asked for, and /v1/changes lists a listing removed on request by id with `old: null`
    // (docs/AUDIT.md): neither describes the listing, so only the listing's own text is looked for there.
    const idsAllowed = (path: string): boolean => path.startsWith('/v1/firms/') || path === '/v1/changes';
    for (const [path, text] of bodies) {
      for (const re of [...ALPHA_TEXT, ...(idsAllowed(path) ? [] : ALPHA.map((id) => new RegExp(id)))])
        if (re.test(text)) seen.leaks.push(`${path}: ${re.source}`);
    }
    return seen;
  } finally {
    await server.close();
  }
}

function expectAbsent(seen: Seen, version: string | null, oldVersions: readonly string[]): void {
  if (version !== null) expect(seen.version).toBe(version);
  for (const id of ALPHA) {
    expect(seen.firms[id], id).toBe(404);
    expect(seen.redirects[id], id).toBe(404);
  }
  expect(seen.searchIds.filter((id) => ALPHA.includes(id))).toEqual([]);
  expect(seen.searchIds.length).toBeGreaterThan(0);
  expect(seen.offices).toBe(7);
  for (const v of oldVersions) expect(seen.versionPaths[`/v/${v}/${ALPHA_PACK}`]).toBe(404);
  for (const [path, m] of Object.entries(seen.measurement)) {
    expect(m.namesAlpha, path).toBe(false);
    expect(m.status, path).toBe(path.startsWith(`/v/${seen.version ?? ''}/`) ? 200 : 404);
  }
  expect(seen.leaks).toEqual([]);
}

describe('release, correction, removal, rollback: the removed firm is absent from every URL', () => {
  for (const target of ['folder', 'bucket'] as const) {
    it(
      target,
      async () => {
        const data = await copyFixture();
        await addFollowingWeek(data);
        const site = join(await tempDir(`e2e-${target}`), 'site');
        const records = await tempDir('e2e-rec');
        const prefix = `e2e-${Date.now()}/`;
        const bucket: Partial<ReleaseOptions> =
          target === 'bucket' ? { bucket: { bucket: 'site', prefix, ...s3.clientOptions } } : {};
        const env: Record<string, string> =
          target === 'bucket'
            ? { SITE_BUCKET: 'site', SITE_PREFIX: prefix, SITE_S3_ENDPOINT: s3.endpoint, SITE_DIR: site }
            : { SITE_DIR: site };
        const run = async (extra: Partial<ReleaseOptions>): Promise<ReleaseRecord> => {
          const r = await release({
            dataDir: data,
            siteDir: site,
            recordsDir: records,
            log: () => {},
            ...bucket,
            ...extra,
          });
          return r;
        };

        // 1. The weekly release: Alpha is listed.
        const v1 = await run({ week: '2026-W47' });
        expect(v1.outcome, v1.error ?? '').toBe('released');
        const before = await look(env, []);
        expect(Object.values(before.firms)).toEqual([200, 200, 200]);
        expect(before.searchIds.filter((id) => ALPHA.includes(id)).length).toBeGreaterThan(0);
        // The served version's measurement is answered, and it names Alpha's listings (so a 404 later is the removal's).
        expect(Object.values(before.measurement).map((m) => m.status)).toEqual([200, 200]);
        expect(Object.values(before.measurement).some((m) => m.namesAlpha)).toBe(true);

        // 2. A same-day correction.
        await writeFile(
          join(data, 'corrections.jsonl'),
          `${JSON.stringify({ action: 'update', place_id: 'p4', reason: 'firm called', date: '2026-11-20', set: { phone: '(312) 555-0199' } })}\n`,
        );
        const v2 = await run({ week: '2026-W47' });
        expect(v2.outcome, v2.error ?? '').toBe('released');
        if (target === 'bucket') expect(v2.invalidation.paths).toContain('/v1/coverage');

        // 3. The Alpha firm asks to be removed: a standing removal, released the same day (3 of 10 offices: the drop gate is forced by name).
        await writeFile(
          join(data, 'removals.jsonl'),
          `${JSON.stringify({ domain: 'alphalaw.example', date: '2026-11-21', reason: 'the firm asked', public_note: 'removed at the firm’s request' })}\n`,
        );
        const v3 = await run({
          week: '2026-W47',
          force: { 'counts-drop': 'Alpha asked to be removed (removals.jsonl:1)' },
        });
        expect(v3.outcome, v3.error ?? '').toBe('released');
        expect(v3.forced).toEqual([{ gate: 'counts-drop', reason: 'Alpha asked to be removed (removals.jsonl:1)' }]);
        const older = [v1.version as string, v2.version as string];
        expectAbsent(await look(env, older), v3.version, older);

        // 4. Next week: still absent.
        const v4 = await run({ week: '2026-W48' });
        expect(v4.outcome, v4.error ?? '').toBe('released');
        expectAbsent(await look(env, [...older, v3.version as string]), v4.version, older);

        // 5. Roll back to the removal's version: it holds no removed listing, so it is served again as it is.
        const back3 = await run({ rollback: v3.version as string });
        expect(back3.outcome, back3.error ?? '').toBe('released');
        expect(back3.rollback).toEqual({ to: v3.version, how: 'pointer' });
        expect(back3.version).toBe(v3.version);
        expectAbsent(await look(env, older), v3.version, older);

        // 6. Roll back to the first week's version, which still holds Alpha: refused, naming where it may go instead.
        const back1 = await run({ rollback: v1.version as string });
        expect(back1.outcome).toBe('refused');
        expect(back1.failed_step).toBe('rollback target');
        expect(back1.error).toMatch(/released with other corrections|under a standing removal/);
        expect(back1.error).toContain(`it may go back to ${v4.version as string}`);
        expect(back1.error).toContain(target === 'bucket' ? '--bucket site' : 'npm run release -- --week 2026-W47');
        expectAbsent(await look(env, older), v3.version, older);

        // 7. After the rollback a plain release asks for --week; a version never released is refused; nothing moves.
        const plain = await run({});
        expect(plain.outcome).toBe('refused');
        expect(plain.error).toMatch(/a plain release would release 2026-W48 .*--week 2026-W48/);
        const gone = await run({ rollback: '2026-W40-0123456789' });
        expect(gone.outcome).toBe('refused');
        expect(gone.error).toMatch(/2026-W40-0123456789 was never released to .*it may go back to .*2026-W4[78]-/);
        expect(gone.error).not.toMatch(/ENOENT/);
        expectAbsent(await look(env, older), v3.version, older);
      },
      600_000,
    );
  }
});
