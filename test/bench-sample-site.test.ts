/**
 * `npm run bench` generates its sample site into a clean folder: an old bench/out/site-sample whose live version is of a
 * retired schema (left by an older checkout) is removed, with a line saying so, instead of failing at "generate".
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSampleSite } from '../bench/scale/sample-site.ts';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { generateLive } from './helpers/generate-live.ts';
import { downgradeToMeta1 } from './helpers/legacy-site.ts';

afterAll(removeTempDirs);

describe('the bench sample site', () => {
  it('over an old sample of a retired schema: removes it, says so, and generates the sample afresh', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('bench-sample'), 'site-sample');
    const old = await generateLive({ dataDir: data, outDir: site, quiet: true });
    await downgradeToMeta1(site, old.version);

    const lines: string[] = [];
    const cost = await generateSampleSite(data, site, (l) => lines.push(l));
    expect(cost.ok, cost.error ?? '').toBe(true);
    expect(lines[0]).toBe(
      `removing the old sample site ${site} (generated afresh: an old one may be of a retired schema)`,
    );
    const live = Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).version;
    const meta = JSON.parse(await readFile(join(site, keys.meta(live)), 'utf8')) as { schema_version: number };
    expect(meta.schema_version).toBe(SCHEMA_VERSIONS.meta);
  });
});
