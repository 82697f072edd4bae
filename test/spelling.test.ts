/** Close spellings (shim/places/spelling.ts): the distance against its recursive definition, and the clear-reading rule. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clearReading, maxEdits, nearNames, osaDistance } from '../shim/places/spelling.ts';

/** Optimal string alignment distance straight from its recursive definition (exponential; short strings only). */
function reference(a: string, b: string): number {
  const memo = new Map<string, number>();
  const d = (i: number, j: number): number => {
    const k = `${i},${j}`;
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    let v: number;
    if (i === 0) v = j;
    else if (j === 0) v = i;
    else {
      v = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d(i - 2, j - 2) + 1);
    }
    memo.set(k, v);
    return v;
  };
  return d(a.length, b.length);
}

describe('osaDistance', () => {
  it('equals the recursive definition, or max + 1 once past max', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'o', 'e'), maxLength: 9 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const want = reference(a, b);
        expect(osaDistance(a, b, max)).toBe(want <= max ? want : max + 1);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts a swap of two neighbouring letters as one edit', () => {
    expect(osaDistance('pheonix', 'phoenix', 2)).toBe(1);
    expect(osaDistance('tuscon', 'tucson', 2)).toBe(1);
    expect(osaDistance('hueston', 'houston', 2)).toBe(2);
    expect(osaDistance('cincinatti', 'cincinnati', 2)).toBe(2);
  });
});

describe('clearReading', () => {
  const pop = (e: [string, number | null]): number | null => e[1];
  const near = (key: string, names: [string, number | null][]) =>
    nearNames(
      key,
      names.map((n): [string, [string, number | null]] => [n[0], n]),
      pop,
    );

  it('takes the nearest name when it is populous and far more so than any rival one edit further', () => {
    const pheonix = near('pheonix', [
      ['phoenix', 1_563_025],
      ['phenix', 26_000],
      ['paris', 25_000],
    ]);
    expect(clearReading('pheonix', pheonix)?.value[0]).toBe('phoenix');
  });

  it('asks instead when two readings are comparable, the best is small, or the name is short', () => {
    expect(
      clearReading(
        'portlnd',
        near('portlnd', [
          ['portland', 650_000],
          ['portlnad', 70_000],
        ]),
      ),
    ).toBeNull();
    expect(clearReading('urbna', near('urbna', [['urbana', 42_000]]))).toBeNull();
    expect(clearReading('chco', near('chco', [['chico', 90_000]]))).toBeNull();
  });

  it('allows one edit up to six letters and two from seven', () => {
    expect([maxEdits(4), maxEdits(6), maxEdits(7), maxEdits(12)]).toEqual([1, 1, 2, 2]);
    expect(near('seatle', [['seattle', 750_000]]).map((n) => n.distance)).toEqual([1]);
    expect(near('sattle', [['seattle', 750_000]]).map((n) => n.distance)).toEqual([1]);
    expect(near('sxtl', [['seattle', 750_000]])).toEqual([]);
  });
});
