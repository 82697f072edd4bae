/**
 * The release's verify step: before a new version is made current, check its manifest and recompute a seeded sample of
 * answers by brute force over its record chunks, comparing each with the answer the shim gives from that version.
 */
import { ApiError } from '../../shim/contract/errors.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { CoverageCells, keys } from '../../shim/format/site-format.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { assertSafeRange, sliceRange } from '../../shim/store/range.ts';
import type { ReadOptions, Store } from '../../shim/store/types.ts';
import { compareAnswer } from '../audit/compare.ts';
import { checkManifest } from '../audit/manifest.ts';
import { sampleQueries } from '../audit/queries.ts';
import { recomputeAnswer } from '../audit/recompute.ts';
import { scanOffices } from '../site/scan.ts';
import { openSite } from '../site/site.ts';
import { pointerDoc } from '../write/documents.ts';
import { serialise } from '../write/json.ts';

/** A store that names `version` as current and reads everything else from `inner` (a version not yet pointed at). */
class PinnedStore implements Store {
  readonly kind: string;
  private readonly inner: Store;
  private readonly pointer: Uint8Array;
  readonly getRange?: (key: string, start: number, end: number, options?: ReadOptions) => Promise<Uint8Array | null>;
  constructor(inner: Store, pointer: Uint8Array) {
    this.inner = inner;
    this.pointer = pointer;
    this.kind = `${inner.kind}+pinned`;
    const { getRange } = inner;
    if (getRange !== undefined) {
      // The pointer is held in memory, so a range of it is a slice of those bytes.
      this.getRange = async (key, start, end, options) => {
        if (key !== keys.pointer) return getRange.call(inner, key, start, end, options);
        assertSafeRange(key, start, end);
        return sliceRange(this.kind, key, this.pointer, start, end);
      };
    }
  }
  get(key: string): Promise<Uint8Array | null> {
    return key === keys.pointer ? Promise.resolve(this.pointer) : this.inner.get(key);
  }
}

/** What the verify step found. */
export interface VersionCheck {
  version: string;
  objects: number;
  offices: number;
  queries: number;
  /** Every problem (manifest, scan, differing answers); empty when the version is good. */
  problems: string[];
}

/** Check `version` in the site folder: manifest, office scan, and `sample` seeded queries recomputed and compared. */
export async function checkVersion(
  siteDir: string,
  version: string,
  sample: number,
  seed: number,
  log?: (line: string) => void,
): Promise<VersionCheck> {
  const site = await openSite({ kind: 'folder', dir: siteDir }, version);
  const manifest = await checkManifest(site, log === undefined ? {} : { log });
  const scan = await scanOffices(site);
  const problems = [...manifest.problems, ...scan.problems];
  const coverage = await site.json(keys.coverageCells(version), CoverageCells);
  if (coverage === null) problems.push(`${keys.coverageCells(version)} is missing`);
  const queries = coverage === null ? [] : sampleQueries(coverage, sample, seed);
  const pointer = serialise(pointerDoc(version, site.meta.week));
  const service = createService(createSiteSource(new PinnedStore(new FolderStore(siteDir), pointer)));
  const officesById = new Map(scan.offices.map((o) => [o.listing_id, o]));
  // Points sampled up to 40 miles from a measured cell may lie abroad or out at sea: the service refuses those (the
  // published boundary decides), and the recomputation has nothing to compare. Counted; too many is a problem.
  let outsideUs = 0;
  for (const q of queries) {
    if (coverage === null || q.point === null) continue;
    let got;
    try {
      got = await service.findAttorneys(Object.fromEntries(new URLSearchParams(q.query)), {
        publicBaseUrl: 'https://release.invalid',
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'location_not_understood') throw err;
      outsideUs++;
      continue;
    }
    const expected = recomputeAnswer(scan.offices, coverage, q.point.lat, q.point.lng, q.radiusMiles, q.limit);
    const diffs = compareAnswer(expected, got, {
      lat: q.point.lat,
      lng: q.point.lng,
      radiusMiles: q.radiusMiles,
      limit: q.limit,
      officesById,
    });
    for (const d of diffs) problems.push(`${q.query}: ${d}`);
  }
  if (outsideUs > queries.length / 4)
    problems.push(
      `${outsideUs} of ${queries.length} sampled points were refused as outside the US (at most a quarter)`,
    );
  log?.(
    `verify: ${version}: manifest ${manifest.problems.length === 0 ? 'ok' : 'BAD'}, ${scan.offices.length} offices, ${queries.length} answers recomputed (${outsideUs} points outside the US skipped), ${problems.length} problem(s)`,
  );
  return { version, objects: manifest.objects, offices: scan.offices.length, queries: queries.length, problems };
}
