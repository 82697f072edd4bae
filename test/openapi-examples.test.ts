/**
 * openapi.json's examples come from the version's own data, standing removals applied: the example listing is one the
 * version answers, and once its firm is removed no byte of the live version's openapi.json (served at /openapi.json
 * and rendered at /docs) names it. A removal shows in the changes document, never in the examples.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release } from '../generator/release/release.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

const CTX = { publicBaseUrl: 'https://directory.example' };

/** The live version's openapi.json (text) and the listing its parameter examples name. */
async function liveOpenApi(site: string): Promise<{ text: string; listing: string }> {
  const { version } = Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8')));
  const text = await readFile(join(site, keys.openapi(version)), 'utf8');
  const doc = JSON.parse(text) as {
    paths: Record<string, { get?: { parameters?: { name: string; example?: unknown }[] } }>;
  };
  const listing = doc.paths['/v1/firms/{listing_id}']?.get?.parameters?.find((p) => p.name === 'listing_id')?.example;
  if (typeof listing !== 'string') throw new Error('no listing_id example');
  return { text, listing };
}

describe('OpenAPI examples from the served version', () => {
  it('name a listing the version answers; after its firm is removed, none of it remains', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('oa-site'), 'site');
    const records = await tempDir('oa-records');
    const run = () => release({ dataDir: data, siteDir: site, recordsDir: records, verifySample: 5, log: () => {} });
    const first = await run();
    expect(first.outcome, first.error ?? '').toBe('released');
    const service = createService(createSiteSource(new FolderStore(site), { pointerTtlMs: 0 }));
    const before = await liveOpenApi(site);
    const firm = await service.getFirm(before.listing, CTX);
    expect(firm.office.listing_id).toBe(before.listing);
    expect(before.text).toContain(firm.firm.name);

    await appendFile(
      join(data, 'removals.jsonl'),
      `${JSON.stringify({ date: '2026-11-21', firm_id: firm.firm.firm_id, reason: 'asked to be removed' })}\n`,
    );
    const removed = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      verifySample: 5,
      force: { 'counts-drop': 'the firm asked to be removed' },
      log: () => {},
    });
    expect(removed.outcome, removed.error ?? '').toBe('released');
    const after = await liveOpenApi(site);
    const ids = [firm.office.listing_id, firm.firm.firm_id, ...firm.other_offices.map((o) => o.listing_id)];
    for (const needle of [...ids, firm.firm.name]) expect(after.text).not.toContain(needle);
    expect((await service.getFirm(after.listing, CTX)).office.listing_id).toBe(after.listing);
    // The changes document says the listing went, by id, date and reason class.
    const changes = (await service.getChanges(CTX)) as {
      removed: { listing_id: string; reasons: { kind: string; date?: string }[] }[];
    };
    const gone = changes.removed.find((r) => r.listing_id === firm.office.listing_id);
    expect(gone?.reasons).toContainEqual(expect.objectContaining({ kind: 'removal', date: '2026-11-21' }));
    expect(JSON.stringify(changes)).not.toContain('asked to be removed');
  });
});
