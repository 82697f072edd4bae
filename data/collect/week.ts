/** Builds a week's input files (dataset, places, samples, flags) from the answers log; pure and deterministic. */
import { firmKeyOf } from '../../generator/inputs/ids.ts';
import type { DatasetFileT, FlagRecordT, PlaceRecordT, SampleRecordT } from '../../generator/inputs/schema.ts';
import { answerKey, type LogAnswerT } from './answers-log.ts';
import type { GridPoint } from './grid.ts';
import { placeRecordOf, type Skip } from './ingest.ts';
import type { OperatorFlags } from './operator-flags.ts';

/** A week's files, ready to write. */
export interface WeekFiles {
  dataset: DatasetFileT;
  places: PlaceRecordT[];
  samples: SampleRecordT[];
  flags: FlagRecordT[];
  /** Places returned but given no record, by reason (they keep their rank in samples). */
  skipped: Record<Skip, number>;
  /** Offices without a claimed status in the operator's flags, by place id (the week cannot be written until none is left). */
  claimsNeeded: ClaimNeeded[];
}

/** An office the operator must give a claimed status. */
export interface ClaimNeeded {
  place_id: string;
  claimed: null;
  name: string;
  address: string;
}

/**
 * The week from every (point, query) answer. Rank = position in the provider's answer. Places are deduplicated by id,
 * each taken from its first answer in grid then query order, so the order answers arrived in never matters.
 */
export function buildWeek(
  week: string,
  collectedAt: string,
  points: readonly GridPoint[],
  queries: readonly string[],
  answers: ReadonlyMap<string, LogAnswerT>,
  flags: OperatorFlags,
): WeekFiles {
  const samples: SampleRecordT[] = [];
  const places = new Map<string, PlaceRecordT>();
  const seen = new Set<string>();
  const claimsNeeded: ClaimNeeded[] = [];
  const skipped: Record<Skip, number> = { 'not-a-law-office': 0, closed: 0, 'outside-us': 0, incomplete: 0 };
  for (const p of points) {
    for (const query of queries) {
      const answer = answers.get(answerKey(p.pointId, query));
      if (answer === undefined) throw new Error(`no answer for "${query}" at ${p.pointId}`);
      const ranked: string[] = [];
      for (const place of answer.places) {
        // A place listed twice in one answer keeps its best rank.
        if (!ranked.includes(place.id)) ranked.push(place.id);
        if (seen.has(place.id)) continue;
        seen.add(place.id);
        const claimed = flags.claimed.get(place.id);
        const record = placeRecordOf(place, claimed ?? false);
        if (typeof record === 'string') skipped[record]++;
        else {
          places.set(record.place_id, record);
          if (claimed === undefined)
            claimsNeeded.push({
              place_id: record.place_id,
              claimed: null,
              name: record.name,
              address: place.formattedAddress ?? `${record.street_address}, ${record.city}, ${record.state}`,
            });
        }
      }
      samples.push({ metro: p.metro, point_id: p.pointId, lat: p.lat, lng: p.lng, query, ranked });
    }
  }
  const sorted = [...places.values()].sort((a, b) => (a.place_id < b.place_id ? -1 : a.place_id > b.place_id ? 1 : 0));
  const firmKeys = new Set(sorted.map((p) => firmKeyOf(p.place_id, p.website)));
  const weekFlags = [...firmKeys]
    .sort()
    .map((firm) => flags.firms.get(firm))
    .filter((f): f is FlagRecordT => f !== undefined)
    .map((f) => ({ firm: f.firm, profile_type: f.profile_type, sponsored: f.sponsored }));
  return {
    dataset: {
      schema_version: 1,
      name: 'Weekly web-map collection (Google Places API (New) Text Search)',
      synthetic: false,
      week,
      collected_at: collectedAt,
    },
    places: sorted,
    samples,
    flags: weekFlags,
    skipped,
    claimsNeeded: claimsNeeded.sort((a, b) => (a.place_id < b.place_id ? -1 : a.place_id > b.place_id ? 1 : 0)),
  };
}
