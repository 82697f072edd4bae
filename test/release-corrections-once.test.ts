/**
 * The corrections a release records are the ones it applied: corrections.jsonl edited while a release runs (after it
 * began, before generate read it) is recorded by the digest of what generate read, so a rollback's check holds.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release, type ReleaseRecord } from '../generator/release/release.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('corrections.jsonl edited during a release', () => {
  it('the record holds the digest of the corrections generate applied, not of the file as it was at the start', async () => {
    const data = await copyFixture();
    const site = join(await tempDir('corr-once'), 'site');
    const records = await tempDir('corr-once-records');
    const before = await release({ dataDir: data, siteDir: site, recordsDir: records, verifySample: 5, log: () => {} });
    expect(before.outcome, before.error ?? '').toBe('released');
    expect(before.inputs?.corrections_sha256).toBe(sha256(''));

    // The operator saves a removal of p3 just after the release read the live version (before generate reads inputs).
    const edited = `${JSON.stringify({ action: 'remove', place_id: 'p3', reason: 'closed', date: '2026-11-20' })}\n`;
    let written = false;
    const r = await release({
      dataDir: data,
      siteDir: site,
      recordsDir: records,
      verifySample: 5,
      log: (line) => {
        if (!written && line.includes(`live on folder`)) {
          writeFileSync(join(data, 'corrections.jsonl'), edited);
          written = true;
        }
      },
    });
    expect(written).toBe(true);
    expect(r.outcome, r.error ?? '').toBe('released');
    // The removal was applied (one office fewer) and the record says so by its digest.
    expect(r.counts?.offices).toBe((before.counts?.offices ?? 0) - 1);
    expect(r.inputs?.corrections_sha256).toBe(sha256(edited));
    const onDisk = JSON.parse(await readFile(r.recordPath, 'utf8')) as ReleaseRecord;
    expect(onDisk.inputs?.corrections_sha256).toBe(sha256(edited));
  });
});
