/**
 * Research counts cannot be combined to reveal a suppressed cell: on crafted weeks, a brute-force reader who knows the
 * rules (shown counts exact, every listed cell at least 1, the views adding up to the same total) finds no suppressed
 * count, and no withheld total, with a single possible value.
 */
import { describe, expect, it } from 'vitest';
import { countSearches, type LogLineT, type ResearchCounts } from '../generator/research/counts.ts';
import { recoverable } from './helpers/disclosure.ts';

/** A week of answered searches (2026-W47) with these counts by metro and by ZIP3 (both must add up to the same total). */
function week(metros: Record<string, number>, zip3s: Record<string, number>): LogLineT[] {
  const expand = (counts: Record<string, number>): string[] =>
    Object.entries(counts).flatMap(([k, n]) => Array.from({ length: n }, () => k));
  const m = expand(metros);
  const z = expand(zip3s);
  if (m.length !== z.length) throw new Error(`the views add up to ${m.length} and ${z.length}`);
  return m.map((metro, i) => ({
    time: '2026-11-18T12:00:00.000Z',
    endpoint: '/v1/attorneys',
    status: 200,
    query_id: `q${i}`,
    metro,
    zip3: z[i] ?? null,
    location: `l${i}`,
  }));
}
const count = (lines: LogLineT[]): ResearchCounts => countSearches(lines, '2026-W47', '2026-11-16', '2026-11-22');
const hidden = (cells: ResearchCounts['by_metro']): string[] =>
  cells.filter((c) => c.searches === null).map((c) => c.key);

describe('complementary suppression', () => {
  it('one metro under 10 beside an exact total (290 - 281 = 9): the next-smallest metro is suppressed too, and nothing can be worked out', () => {
    const doc = count(week({ chicago: 254, austin: 15, boston: 12, tampa: 9 }, { '606': 250, '787': 29, '021': 11 }));
    expect(doc.searches).toBe(290);
    expect(hidden(doc.by_metro)).toEqual(['boston', 'tampa']);
    // The reader's subtraction now gives two cells' sum, 21, which tampa 1..9 and boston 10..15 split six ways.
    const shown = doc.by_metro.reduce((a, c) => a + (c.searches ?? 0), 0);
    expect(290 - shown).toBe(21);
    expect(hidden(doc.by_zip3)).toEqual([]);
    expect(recoverable(doc)).toEqual([]);
    // What the old rule published (cells under 10 only) gives tampa away: the check sees it.
    const old = { ...doc, by_metro: doc.by_metro.map((c) => (c.key === 'boston' ? { key: c.key, searches: 12 } : c)) };
    expect(recoverable(old)).toEqual(['metro tampa = 9']);
  });

  it('the same per ZIP3, where one complement is not enough (1 + 10 = 11 would pin both): a third cell goes too', () => {
    // week() pairs the lists in key order (integer-like keys first): Chicago holds 335 (10), 336 (1) and 189 of 606.
    const doc = count(week({ chicago: 200, austin: 100 }, { '606': 265, '787': 13, '021': 11, '335': 10, '336': 1 }));
    expect(doc.searches).toBe(300);
    // 606 is 336's only other neighbour in Chicago: with 335 alone, Chicago 200 - 189 (606 - Austin's 76) pins 1 + 10.
    expect(hidden(doc.by_zip3)).toEqual(['335', '336', '606']);
    expect(recoverable(doc)).toEqual([]);
    const old = {
      ...doc,
      by_zip3: doc.by_zip3.map((c) =>
        c.key === '606' ? { key: c.key, searches: 265 } : c.key === '335' ? { key: c.key, searches: 10 } : c,
      ),
    };
    expect(recoverable(old)).toEqual(['zip3 336 = 1']);
  });

  it("a view whose cells are all small and pinned by the total withholds the total, then the other view's cell; a handful of searches publishes no cell", () => {
    // 6 + 7 = 13 leaves each of them several values: the total and the one ZIP3 stay.
    const small = count(week({ chicago: 6, austin: 7 }, { '606': 13 }));
    expect(small.searches).toBe(13);
    expect(hidden(small.by_metro)).toEqual(['austin', 'chicago']);
    expect(recoverable(small)).toEqual([]);
    // 9 + 9 = 18 pins both (each is at most 9): the total goes, and so does the ZIP3 that equals it (it would say 18).
    const nines = count(week({ chicago: 9, austin: 9 }, { '606': 18 }));
    expect(nines.searches).toBeNull();
    expect(hidden(nines.by_metro)).toEqual(['austin', 'chicago']);
    expect(hidden(nines.by_zip3)).toEqual(['606']);
    expect(recoverable(nines)).toEqual([]);
    // Nine searches in nine ZIP3s: listing nine keys alone says the total is 9, and so the one metro's count.
    const tiny = count(week({ chicago: 9 }, Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`60${i}`, 1]))));
    expect(tiny.searches).toBeNull();
    expect(tiny.by_metro).toEqual([]);
    expect(tiny.by_zip3).toEqual([]);
    expect(recoverable(tiny)).toEqual([]);
  });

  it('random weeks: nothing published can be worked out, and every count shown is exact', () => {
    let seed = 26;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run++) {
      const metros: Record<string, number> = {};
      const zip3s: Record<string, number> = {};
      const lines: Array<[string, string]> = [];
      const nm = 1 + Math.floor(rand() * 4);
      const nz = 1 + Math.floor(rand() * 5);
      const n = 1 + Math.floor(rand() * 80);
      for (let i = 0; i < n; i++)
        lines.push([`m${Math.floor(rand() * rand() * nm)}`, `${100 + Math.floor(rand() * rand() * nz)}`]);
      for (const [m, z] of lines) {
        metros[m] = (metros[m] ?? 0) + 1;
        zip3s[z] = (zip3s[z] ?? 0) + 1;
      }
      const log = lines.map(([metro, zip3], i): LogLineT => ({
        time: '2026-11-18T12:00:00.000Z',
        endpoint: '/v1/attorneys',
        status: 200,
        query_id: `q${i}`,
        metro,
        zip3,
        location: `l${i}`,
      }));
      const doc = count(log);
      expect(recoverable(doc), JSON.stringify({ metros, zip3s })).toEqual([]);
      for (const c of doc.by_metro) if (c.searches !== null) expect(c.searches).toBe(metros[c.key]);
      for (const c of doc.by_zip3) if (c.searches !== null) expect(c.searches).toBe(zip3s[c.key]);
      if (doc.searches !== null) expect(doc.searches).toBe(n);
    }
  });
});
