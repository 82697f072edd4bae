/**
 * The cold-path bench over S3 (bench/cold/cold-s3.ts) measures real reads: the same queries through S3Store on s3rver
 * read the same objects and decoded bytes as from the site folder. It once asked nothing at all (an `onAnswer?.(await
 * ...)` skipped its argument when no callback was given) and reported 0 objects for every query.
 */
import { describe, expect, it } from 'vitest';
import { measureColdReads } from '../bench/cold/cold.ts';
import { measureColdReadsS3 } from '../bench/cold/cold-s3.ts';
import { densePoints } from '../bench/lib/points.ts';

const SITE = process.env.TEST_SITE_DIR as string;

describe('the cold-path bench over S3', () => {
  it('reads what the folder run reads, query for query', async () => {
    const points = densePoints().slice(0, 3);
    const folder = await measureColdReads(SITE, [1], points);
    const s3 = await measureColdReadsS3(SITE, [1], { points, readSetOnly: true });
    const [a, b] = [folder[0], s3.sets[0]];
    expect(a?.queries).toBeGreaterThan(0);
    expect(b?.queries).toBe(a?.queries);
    expect(b?.objects.max).toBeGreaterThan(5);
    expect(b?.objects).toEqual(a?.objects);
    expect(b?.bytes).toEqual(a?.bytes);
    expect(b?.wireBytes.max).toBeGreaterThan(0);
  }, 120_000);
});
