/** The smallest meta.json a site reader accepts, for tests that build a site in a MemoryStore by hand. */
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';

/** meta.json of `version`: one synthetic metro, one ZIP3 and one city document. */
export function minimalMeta(version: string): object {
  return {
    schema_version: SCHEMA_VERSIONS.meta,
    generated: 'by generator/; do not edit',
    version,
    week: '2026-W47',
    week_of: '2026-11-16',
    generated_at: '2026-11-22T00:00:00Z',
    dataset: { name: 'sample', synthetic: true },
    coverage_resolution: 5,
    totals: { firms: 1, offices: 1, metros: 1 },
    metros: { sample: { grid_points: 1, queries: 5, grid_samples: 5 } },
    gazetteer: { zip3: ['606'], cities: { IL: 'c' } },
    listing_prefix_length: 1,
  };
}
