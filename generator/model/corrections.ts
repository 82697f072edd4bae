/** Operator corrections (data/corrections.jsonl) applied on top of a week's place records. */
import type { Row } from '../inputs/jsonl.ts';
import type { CorrectionRecordT, PlaceRecordT } from '../inputs/schema.ts';

/** Places after corrections, the ids removed, and what did not apply. */
export interface Corrected {
  places: PlaceRecordT[];
  removed: Set<string>;
  updated: Set<string>;
  notes: string[];
  /** Corrections naming a place that is not in this week's places (a release gate refuses them). */
  unknown: { line: number; place_id: string; action: string }[];
}

/**
 * Apply corrections in file order: `update` overrides the fields in `set`, `remove` drops the place (a later update of a
 * removed place does nothing). Corrections naming a place that is not in this week's data are noted, not errors: the
 * file applies to every week.
 */
export function applyCorrections(
  places: readonly PlaceRecordT[],
  corrections: readonly Row<CorrectionRecordT>[],
): Corrected {
  const byId = new Map<string, PlaceRecordT>();
  for (const p of places) byId.set(p.place_id, p);
  const removed = new Set<string>();
  const updated = new Set<string>();
  const notes: string[] = [];
  const unknown: Corrected['unknown'] = [];
  for (const { line, value: c } of corrections) {
    const current = byId.get(c.place_id);
    if (current === undefined) {
      if (!removed.has(c.place_id)) unknown.push({ line, place_id: c.place_id, action: c.action });
      if (!removed.has(c.place_id))
        notes.push(
          `corrections.jsonl:${line}: place "${c.place_id}" is not in this week's places; nothing to ${c.action}`,
        );
      continue;
    }
    if (c.action === 'remove') {
      byId.delete(c.place_id);
      removed.add(c.place_id);
      updated.delete(c.place_id);
    } else {
      byId.set(c.place_id, { ...current, ...c.set });
      updated.add(c.place_id);
    }
  }
  const out = places.filter((p) => byId.has(p.place_id)).map((p) => byId.get(p.place_id) as PlaceRecordT);
  return { places: out, removed, updated, notes, unknown };
}
