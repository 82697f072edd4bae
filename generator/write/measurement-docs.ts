/** The published measurement (one document per metro): per grid point and query, the ranked listing ids the sampler saw. */
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import type { MeasurementDocT } from '../../shim/format/site-format.ts';
import type { Firm } from '../model/firms.ts';
import type { MetroT, SampleRecordT } from '../inputs/schema.ts';

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

type Point = MeasurementDocT['points'][number];

/**
 * One document per metro (in metros.json order), points sorted by point_id and queries within a point sorted. A ranked
 * place that is not an office of this version (another business, a removed or corrected-away listing) becomes null, so
 * ranks keep their positions and no id of the map service other than a published listing's leaves the operator.
 */
export function measurementDocs(
  metros: readonly MetroT[],
  samples: readonly SampleRecordT[],
  firms: readonly Firm[],
  week: string,
): MeasurementDocT[] {
  const listingOf = new Map<string, string>();
  for (const f of firms) for (const o of f.offices) listingOf.set(o.place.place_id, o.listingId);
  const perMetro = new Map<
    string,
    { queries: Set<string>; points: Map<string, { point: Point; ranked: Map<string, (string | null)[]> }> }
  >();
  for (const m of metros) perMetro.set(m.slug, { queries: new Set(), points: new Map() });
  for (const s of samples) {
    const m = perMetro.get(s.metro);
    if (m === undefined) continue;
    m.queries.add(s.query);
    let p = m.points.get(s.point_id);
    if (p === undefined)
      m.points.set(
        s.point_id,
        (p = { point: { point_id: s.point_id, lat: s.lat, lng: s.lng, ranked: {} }, ranked: new Map() }),
      );
    p.ranked.set(
      s.query,
      s.ranked.map((id) => listingOf.get(id) ?? null),
    );
  }
  return metros.map((metro) => {
    const m = perMetro.get(metro.slug) as NonNullable<ReturnType<typeof perMetro.get>>;
    const points = [...m.points.values()]
      .sort((a, b) => byString(a.point.point_id, b.point.point_id))
      .map(({ point, ranked }) => {
        const byQuery: Record<string, (string | null)[]> = {};
        for (const q of [...ranked.keys()].sort(byString)) byQuery[q] = ranked.get(q) ?? [];
        return { ...point, ranked: byQuery };
      });
    return {
      schema_version: SCHEMA_VERSIONS.measurement,
      generated: 'by generator/; do not edit',
      metro: metro.slug,
      week,
      queries: [...m.queries].sort(byString),
      points,
    };
  });
}
