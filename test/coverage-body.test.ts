/** GET /v1/coverage's body is the served version's stored coverage document, shaped. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createService } from '../shim/answer/service-impl.ts';
import { shapeCoverage } from '../shim/answer/shape.ts';
import { CoverageDoc, keys, Pointer } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';

const SITE = process.env.TEST_SITE_DIR;
if (SITE === undefined) throw new Error('TEST_SITE_DIR is not set (test/global-setup.ts sets it)');
const CTX = { publicBaseUrl: 'https://directory.example' };

describe('getCoverage', () => {
  it('answers the shaped document of the served version', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    const a = await service.getCoverage(CTX);
    const version = Pointer.parse(JSON.parse(readFileSync(join(SITE, keys.pointer), 'utf8'))).version;
    const doc = CoverageDoc.parse(JSON.parse(readFileSync(join(SITE, keys.coverage(version)), 'utf8')));
    expect(JSON.stringify(a)).toBe(JSON.stringify(shapeCoverage(doc, version)));
  });
});
