/**
 * A listing's website is a redirect visitors follow (`/r/<id>`), so it must be on the public internet: the generator
 * refuses a place whose website is localhost, a loopback, private or link-local address or a local-only name, and the
 * server never redirects to one even when a stored document holds it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BadInputError } from '../generator/generate.ts';
import { generateLive } from './helpers/generate-live.ts';
import { isPublicWebHost, isPublicWebUrl } from '../shim/lib/public-host.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { startTestServer } from './helpers/server.ts';
import { linkSite } from './helpers/site-copy.ts';
import { readFirmDoc, readFirmPack, writeFirmDoc } from './helpers/firm-pack.ts';
import { recordHash } from './helpers/rehash.ts';
import { keys, type FirmDocT } from '../shim/format/site-format.ts';

afterAll(removeTempDirs);

const PRIVATE = [
  'http://localhost/',
  'http://LOCALHOST.:8080/admin',
  'http://app.localhost/',
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://10.1.2.3/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://224.0.0.1/',
  'http://[::1]/',
  'http://[::]/',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[2001:db8::1]/',
  'http://router/',
  'http://printer.local/',
  'http://db.internal/',
  'http://nas.home.arpa/',
];
const PUBLIC = [
  'https://alphalaw.example/chicago',
  'https://www.smith-injury.com/',
  'http://8.8.8.8/',
  'http://172.32.0.1/',
  'http://[2606:4700::1111]/',
  'https://xn--bcher-kva.example/',
];

describe('isPublicWebHost', () => {
  it('refuses loopback, private, link-local and reserved addresses in every spelling the URL parser accepts, and local-only names', () => {
    for (const url of PRIVATE) expect(isPublicWebUrl(url), url).toBe(false);
    for (const url of PUBLIC) expect(isPublicWebUrl(url), url).toBe(true);
    expect(isPublicWebHost('[::ffff:7f00:1]')).toBe(false);
  });
});

/** Rewrite one place of a data copy's week. */
async function setWebsite(data: string, placeId: string, website: string): Promise<void> {
  const file = join(data, 'weeks', '2026-W47', 'places.jsonl');
  const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  await writeFile(
    file,
    rows
      .map((l) => {
        const p = JSON.parse(l) as { place_id: string };
        return `${JSON.stringify(p.place_id === placeId ? { ...p, website } : p)}\n`;
      })
      .join(''),
  );
}

describe('generate', () => {
  it('refuses a place whose website is on a private host (a bad row naming why), and leaves it out under --skip-bad', async () => {
    for (const website of ['http://127.0.0.1:8080/admin', 'http://192.168.0.10/', 'http://localhost/']) {
      const data = await copyFixture();
      await setWebsite(data, 'p3', website);
      const out = join(await tempDir('private-host'), 'site');
      const err = await generateLive({ dataDir: data, outDir: out, quiet: true, log: () => {} }).catch(
        (e: unknown) => e,
      );
      expect(err, website).toBeInstanceOf(BadInputError);
      const rows = (err as BadInputError).rows;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.line).toBe(3);
      expect(rows[0]?.reason).toMatch(/website: host is not on the public internet/);
    }
    const data = await copyFixture();
    await setWebsite(data, 'p3', 'http://10.0.0.1/');
    const skipped = await generateLive({
      dataDir: data,
      outDir: join(await tempDir('private-host'), 'site'),
      quiet: true,
      skipBad: true,
      log: () => {},
    });
    expect(skipped.skipped.map((r) => r.line)).toEqual([3]);
  });

  it('refuses a correction that sets such a website', async () => {
    const data = await copyFixture();
    await writeFile(
      join(data, 'corrections.jsonl'),
      `${JSON.stringify({ action: 'update', place_id: 'p3', reason: 'firm wrote in', date: '2026-11-20', set: { website: 'http://169.254.169.254/' } })}\n`,
    );
    const err = await generateLive({
      dataDir: data,
      outDir: join(await tempDir('private-host'), 'site'),
      quiet: true,
      log: () => {},
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).rows[0]?.file).toMatch(/corrections\.jsonl$/);
  });
});

describe('GET /r/{listing_id}', () => {
  it('never redirects to a private host, even when a stored firm document names one', async () => {
    const site = linkSite(process.env.TEST_SITE_DIR as string);
    const targets = ['http://127.0.0.1:8787/admin', 'http://[::1]/', 'http://192.168.1.1/', 'http://localhost/'];
    const src = process.env.TEST_SITE_DIR as string;
    const packs = join(src, 'v', site.version, 'firms');
    // Listings with a website, each in a firm pack of its own, so every one is altered alone.
    const ids = readdirSync(packs)
      .map((f) => readFirmPack(src, `${keys.root(site.version)}firms/${f}`).documents)
      .map((docs) => docs.find((d) => d.firm.website_url?.startsWith('http') === true)?.listing_id)
      .filter((id) => id !== undefined)
      .slice(0, targets.length + 1);
    expect(ids).toHaveLength(targets.length + 1);
    for (const [i, target] of targets.entries()) {
      const doc = readFirmDoc(src, site.version, ids[i] as string) as FirmDocT;
      doc.firm.website_url = target;
      doc.office.website_url = target;
      doc.other_offices = doc.other_offices.map((o) => ({ ...o, website_url: target }));
      // Its hash recorded as a generator would have: the redirect is refused for the host, not for a damaged pack.
      recordHash(site, writeFirmDoc(src, site.version, doc, site.own).slice(keys.root(site.version).length));
    }
    const server = await startTestServer({ SITE_DIR: site.dir });
    try {
      // An untouched listing still redirects to its firm's site.
      expect((await fetch(`${server.url}/r/${ids[targets.length] as string}`, { redirect: 'manual' })).status).toBe(
        302,
      );
      for (const [i, target] of targets.entries()) {
        const reply = await fetch(`${server.url}/r/${ids[i] as string}`, { redirect: 'manual' });
        expect(reply.status, target).not.toBe(302);
        expect(reply.headers.get('location'), target).toBeNull();
      }
    } finally {
      await server.close();
      site.remove();
    }
  });
});
