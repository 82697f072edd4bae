/**
 * The public audit (docs/AUDIT.md): the served version's objects at /v/<current>/... from a real local server, with no
 * credentials. Every object the manifest lists is answered byte for byte as stored; no other version and no unlisted
 * object is answered; a damaged object (or manifest) is a 503 and its repaired copy a 200 without a restart; each
 * request counts toward the per-address ceiling. The audit CLIs (child processes) mirror, verify, measure and diff
 * over HTTP alone, and the saved copy is a site folder equal to the published one.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, Manifest, Pointer } from '../shim/format/site-format.ts';
import { copyFixtureSite } from './helpers/fixture-site.ts';
import { STACK_TRACE_RE } from './helpers/http.ts';
import { HttpStore } from '../generator/site/http-store.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const run = promisify(execFile);

/** Run the audit CLI; its exit status, stdout and stderr (never a stack trace). */
async function audit(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['generator/audit/cli.ts', ...args], { encoding: 'utf8' });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    expect(e.stderr).not.toMatch(STACK_TRACE_RE);
    return { status: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Every file under `dir`, as slash-separated paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

let temp: string;
let site: string;
let version: string;
let server: TestServer;
let manifest: ReturnType<typeof Manifest.parse>;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'iad-audit-public-'));
  site = join(temp, 'site');
  version = await copyFixtureSite(site);
  manifest = Manifest.parse(JSON.parse(await readFile(join(site, keys.manifest(version)), 'utf8')));
  // An older version kept in the folder (a rollback target): its objects are never answered.
  await cp(join(site, keys.root(version)), join(site, keys.root('2026-W01-0123456789')), { recursive: true });
  server = await startTestServer({ SITE_DIR: site });
});

afterAll(async () => {
  await server?.close();
  await rm(temp, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit): Promise<Response> => fetch(server.url + path, init);

describe('/v/<current>/ on the local server', () => {
  it('answers every object the manifest lists, byte for byte as stored, and the manifest itself', async () => {
    const listed = [...Object.keys(manifest.objects), keys.manifest(version)];
    expect(listed.length).toBeGreaterThan(20);
    for (const key of listed) {
      const res = await get(`/${key}`, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status, key).toBe(200);
      expect(res.headers.get('cache-control'), key).toBe('public, max-age=300, s-maxage=0');
      expect(Buffer.from(await res.arrayBuffer()).equals(await readFile(join(site, key))), key).toBe(true);
    }
    const pointer = Pointer.parse(await (await get('/current.json')).json());
    expect(pointer.version).toBe(version);
  });

  it('answers no other version, no unlisted object and no path outside the version (404)', async () => {
    const other = '2026-W01-0123456789';
    await writeFile(join(site, keys.root(version), 'extra.json'), '{}\n');
    for (const path of [
      `/v/${other}/meta.json`,
      `/v/${other}/manifest.json`,
      `/${keys.firmPack(
        other,
        Object.keys(manifest.objects)
          .find((k) => k.includes('/firms/'))
          ?.split('/')
          .pop()
          ?.slice(0, -5) ?? '',
      )}`,
      `/v/${version}/extra.json`,
      `/v/${version}/firms/l_aaaaaaaaaaaaaaaa.json`,
      `/v/${version}/firms/aaaaaa.json`,
      `/v/${version}/firms/a.json`,
      `/v/${version}/cells/groups/8029fffffffffff.json`,
      `/v/${version}/cells/records/nonsense/0.json`,
      `/v/${version}/%2e%2e/current.json`,
      `/v/${version}/cells%2Findex.json`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toMatch(STACK_TRACE_RE);
    }
  });

  it('is a 503 for a damaged object or manifest, and 200 again once repaired, without a restart', async () => {
    const firm = Object.keys(manifest.objects).find((k) => k.includes('/firms/')) as string;
    const chunk = Object.keys(manifest.objects).find((k) => k.includes('/cells/records/')) as string;
    for (const key of [firm, chunk, keys.manifest(version), keys.coverage(version)]) {
      const path = join(site, key);
      const good = await readFile(path);
      const text = good.toString('utf8');
      // Same length, one character changed: only the hash can tell.
      // The manifest: its entry of coverage.json (meta.json records that hash too).
      const bad = key.endsWith('manifest.json')
        ? text.replace(
            /(coverage\.json":\{"sha256":")([0-9a-f])/,
            (_m, at: string, c: string) => `${at}${c === '0' ? '1' : '0'}`,
          )
        : text.replace(/"/, "'");
      expect(bad).not.toBe(text);
      await writeFile(path, bad);
      const damaged = await get(`/${key}`);
      expect(damaged.status, key).toBe(503);
      expect(damaged.headers.get('retry-after'), key).not.toBeNull();
      await writeFile(path, good);
      expect((await get(`/${key}`)).status, key).toBe(200);
    }
  });

  it('counts every request toward the per-address ceiling (ten times the answer quota)', async () => {
    const limited = await startTestServer({ SITE_DIR: site, RATE_LIMIT_PER_HOUR: '2' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await fetch(`${limited.url}/v/${version}/meta.json`)).status);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
      expect(statuses[20]).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('npm run audit over HTTP, no credentials', () => {
  it("waits out the ceiling's 429 as Retry-After says, then reads on", async () => {
    // Ten requests a second in all: the 11th within a second is a 429 with Retry-After.
    const limited = await startTestServer({
      SITE_DIR: site,
      RATE_LIMIT_PER_HOUR: '3600',
      RATE_LIMIT_WINDOW_SECONDS: '1',
    });
    try {
      const waits: number[] = [];
      const store = new HttpStore(limited.url, {
        onWait: (seconds, status) => waits.push(status === 429 ? seconds : -1),
      });
      const want = await readFile(join(site, keys.meta(version)));
      for (let i = 0; i < 25; i++)
        expect(Buffer.from((await store.get(keys.meta(version))) ?? []).equals(want)).toBe(true);
      expect(waits.length).toBeGreaterThan(0);
      expect(waits.every((w) => w >= 1 && w <= 2)).toBe(true);
      expect(await store.get(keys.meta('2026-W01-0123456789'))).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('mirror saves the served version; verify, measure and diff run against the service and the copy', async () => {
    const copy = join(temp, 'mirror');
    const m = await audit('mirror', '--url', server.url, '--out', copy, '--quiet');
    expect(m.stderr).toBe('');
    expect(m.status, m.stdout).toBe(0);
    expect(m.stdout).toContain(`version ${version}`);
    // The copy holds exactly the served version, as published, and a pointer naming it.
    const published = (await filesUnder(join(site, keys.root(version)))).filter((f) => f !== 'extra.json');
    expect(await filesUnder(join(copy, keys.root(version)))).toEqual(published);
    for (const f of published)
      expect(
        (await readFile(join(copy, keys.root(version), f))).equals(await readFile(join(site, keys.root(version), f))),
        f,
      ).toBe(true);
    expect(Pointer.parse(JSON.parse(await readFile(join(copy, keys.pointer), 'utf8'))).version).toBe(version);
    // Run again: nothing fetched.
    expect((await audit('mirror', '--url', server.url, '--out', copy, '--quiet')).stdout).toMatch(
      /, 0 fetched .*already saved/,
    );

    const v = await audit('verify', '--url', server.url, '--sample', '5', '--quiet');
    expect(v.stdout).toContain('RESULT: all checks passed');
    expect(v.stdout).toContain('manifest:');
    expect(v.status).toBe(0);
    const me = await audit('measure', '--url', server.url, '--quiet');
    expect(me.stdout).toContain('OK: every published share equals its recomputation');
    expect(me.status).toBe(0);
    const d = await audit('diff', copy, '--url', server.url, '--quiet');
    expect(d.status).toBe(0);
    expect(d.stdout).toMatch(/0 added, 0 removed, 0 changed/);
    // The saved copy verifies as a site folder.
    expect((await audit('verify', '--site', copy, '--quiet')).status).toBe(0);
  });

  it('refuses a bad --url or a missing --out with exit 2 and a message naming what is accepted', async () => {
    const r = await audit('mirror', '--url', 'ftp://x', '--out', join(temp, 'x'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--url must be an http(s) URL');
    expect((await audit('mirror', '--url', server.url)).status).toBe(2);
    const none = await audit('measure', '--url', `${server.url}/nothing-here`, '--quiet');
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no current\.json/);
  });
});
