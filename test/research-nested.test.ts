/**
 * Research suppression across nested views: ZIP3s lie in metros, so a metro's count minus its other ZIP3s' counts is a
 * ZIP3's count. A brute-force reader who knows which (metro, ZIP3) pairs hold searches (test/helpers/disclosure-nested.ts)
 * tries every table consistent with what is published and finds no suppressed number with a single possible value.
 */
import { describe, expect, it } from 'vitest';
import { countSearches, type LogLineT, type ResearchCounts } from '../generator/research/counts.ts';
import { recoverable } from './helpers/disclosure.ts';
import { recoverableNested } from './helpers/disclosure-nested.ts';
import { rng } from './helpers/rng.ts';

/** A week (2026-W47) of answered searches: `n` per (metro, ZIP3) pair. */
function week(table: ReadonlyArray<[string, string, number]>): LogLineT[] {
  return table.flatMap(([metro, zip3, n], t) =>
    Array.from({ length: n }, (_, i): LogLineT => ({
      time: '2026-11-18T12:00:00.000Z',
      endpoint: '/v1/attorneys',
      status: 200,
      query_id: `q${t}-${i}`,
      metro,
      zip3,
      location: `l${t}-${i}`,
    })),
  );
}
const count = (table: ReadonlyArray<[string, string, number]>): ResearchCounts =>
  countSearches(week(table), '2026-W47', '2026-11-16', '2026-11-22');
const pairsOf = (table: ReadonlyArray<[string, string, number]>): Array<[string, string]> =>
  table.map(([m, z]) => [m, z]);
const shownOf = (cells: ResearchCounts['by_metro']): Record<string, number | null> =>
  Object.fromEntries(cells.map((c) => [c.key, c.searches]));

describe('suppression across nested views', () => {
  it('ZIP3 602 = Chicago 23 - ZIP3 606 20 = 3 cannot be worked out', () => {
    // Two small ZIP3s in two metros: the total minus the shown ZIP3s leaves 602 + 786 = 7, which the flat views do
    // not split, but Chicago's own ZIP3s do.
    const table: Array<[string, string, number]> = [
      ['chicago', '602', 3],
      ['chicago', '606', 20],
      ['austin', '786', 4],
      ['austin', '787', 30],
      ['boston', '021', 25],
    ];
    const doc = count(table);
    expect(shownOf(doc.by_zip3)['602']).toBeNull();
    // 606 or Chicago goes with it: the reader's subtraction no longer has two exact numbers.
    expect(shownOf(doc.by_zip3)['606'] === null || shownOf(doc.by_metro).chicago === null).toBe(true);
    expect(recoverableNested(doc, pairsOf(table))).toEqual([]);
    expect(recoverable(doc)).toEqual([]);
    // What suppressing by the flat views alone published (every cell of 10 or more shown): the reader sees it.
    const flat: ResearchCounts = {
      ...doc,
      searches: 82,
      by_metro: [
        { key: 'austin', searches: 34 },
        { key: 'boston', searches: 25 },
        { key: 'chicago', searches: 23 },
      ],
      by_zip3: [
        { key: '021', searches: 25 },
        { key: '602', searches: null, suppressed: true },
        { key: '606', searches: 20 },
        { key: '786', searches: null, suppressed: true },
        { key: '787', searches: 30 },
      ],
    };
    expect(recoverable(flat)).toEqual([]);
    expect(recoverableNested(flat, pairsOf(table))).toEqual(['zip3 602 = 3', 'zip3 786 = 4']);
  });

  it('a ZIP3 split between a metro and no metro, and a metro of one ZIP3, give nothing away', () => {
    const table: Array<[string, string, number]> = [
      ['chicago', '606', 15],
      ['(no measured metro)', '606', 4],
      ['(no measured metro)', '610', 12],
      ['austin', '787', 6],
      ['boston', '021', 18],
      ['boston', '024', 11],
    ];
    const doc = count(table);
    expect(recoverableNested(doc, pairsOf(table))).toEqual([]);
    expect(shownOf(doc.by_metro).austin).toBeNull();
    // Austin's only ZIP3 is 787: suppressing austin alone would leave 787 = 6 shown.
    expect(shownOf(doc.by_zip3)['787']).toBeNull();
  });

  it('random nested weeks: no suppressed number has a single possible value; every shown count is exact', () => {
    const rand = rng(34);
    let cases = 0;
    let suppressedCells = 0;
    for (let run = 0; run < 250; run++) {
      // 1-3 metros, each with 1-3 ZIP3s of its own; sometimes a ZIP3 shared with the no-metro row or another metro.
      const table: Array<[string, string, number]> = [];
      const metros = 1 + Math.floor(rand() * 3);
      for (let m = 0; m < metros; m++) {
        const zips = 1 + Math.floor(rand() * 3);
        for (let z = 0; z < zips; z++) table.push([`m${m}`, `${m}${z}0`, 1 + Math.floor(rand() * rand() * 22)]);
      }
      if (rand() < 0.4) {
        const [, zip] = table[Math.floor(rand() * table.length)] as [string, string, number];
        const other = rand() < 0.5 ? '(no measured metro)' : `m${Math.floor(rand() * metros)}`;
        if (!table.some(([m, z]) => m === other && z === zip)) table.push([other, zip, 1 + Math.floor(rand() * 12)]);
      }
      if (table.length > 6) continue;
      const doc = count(table);
      const pairs = pairsOf(table);
      let found: string[];
      try {
        found = recoverableNested(doc, pairs);
      } catch {
        continue;
      }
      cases++;
      expect(found, JSON.stringify(table)).toEqual([]);
      const byMetro = new Map<string, number>();
      const byZip = new Map<string, number>();
      for (const [m, z, n] of table) {
        byMetro.set(m, (byMetro.get(m) ?? 0) + n);
        byZip.set(z, (byZip.get(z) ?? 0) + n);
      }
      for (const [cells, want] of [
        [doc.by_metro, byMetro],
        [doc.by_zip3, byZip],
      ] as const) {
        for (const c of cells) {
          if (c.searches !== null) expect(c.searches).toBe(want.get(c.key));
          else suppressedCells++;
          if ((want.get(c.key) as number) < 10) expect(c.searches).toBeNull();
        }
      }
    }
    expect(cases).toBeGreaterThan(100);
    expect(suppressedCells).toBeGreaterThan(100);
  });
});
