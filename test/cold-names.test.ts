/**
 * The cold path's query set of place names without a state (bench/cold/query-sets.ts): the metros' principal cities
 * and a few names of several places, each read cold; a refusal (400 ambiguous_location) is measured like an answer.
 */
import { describe, expect, it } from 'vitest';
import { coldQueryReads, kindOf, summariseCold } from '../bench/cold/cold.ts';
import { coldQuerySets, namesWithoutState } from '../bench/cold/query-sets.ts';
import { RoundStore } from '../bench/cold/round-store.ts';
import { FolderStore } from '../shim/store/folder.ts';
import type { Store } from '../shim/store/types.ts';

const site = process.env.TEST_SITE_DIR as string;
const ask = (name: string) =>
  coldQueryReads(new FolderStore(site), { name, args: { location: name, radius_miles: '50' } });

describe('cold names without a state', () => {
  it('draws the names from the principal cities once each, then the ambiguous and odd ones, at 50 mi', () => {
    const names = namesWithoutState();
    expect(names.slice(0, 3)).toEqual(['New York', 'Newark', 'Jersey City']);
    expect(names.filter((n) => n === 'Arlington')).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(['Springfield', 'Portland', 'Brooklyn', 'Harlem', 'Pheonix']));
    const set = coldQuerySets([1]).at(-1);
    expect(set?.label).toBe('name without a state at 50 mi');
    expect(set?.refusals).toBe(true);
    expect(set?.queries).toHaveLength(names.length);
    expect(set?.queries[0]?.args).toEqual({ location: 'New York', radius_miles: '50' });
  });

  it('counts a refused name with the reads it started, and only the round its refusal waited for', async () => {
    const springfield = await ask('Springfield');
    expect(springfield.refused).toBe(true);
    expect(springfield.reads.some((r) => r.key.endsWith('/gazetteer/names/sp.json'))).toBe(true);
    // The pointer, then meta.json beside the names document, then the coverage of the candidates' points: Springfields
    // in more states than MAX_PIECES pieces hold, so the whole document.
    expect(springfield.rounds).toHaveLength(3);
    expect(springfield.rounds[2]?.some((k) => k.endsWith('/coverage-cells.json'))).toBe(true);
    const chicago = await ask('Chicago');
    expect(chicago.refused).toBe(false);
    // Its record chunks are read as ranges of their packs, with the shared pages.
    expect(chicago.reads.some((r) => kindOf(r.key) === 'cell pack range')).toBe(true);
    expect(chicago.rounds.length - 1).toBeLessThanOrEqual(3);
    const summary = summariseCold('names', [springfield, chicago]);
    expect(summary.queries).toBe(2);
    expect(summary.refused).toBe(1);
    expect(summary.rounds.max).toBe(chicago.rounds.length - 1);
  });
});

describe('RoundStore.settled', () => {
  it('waits for the reads a caller started and no longer awaits, in a round of their own', async () => {
    const seen: string[] = [];
    const inner: Store = {
      kind: 'memory',
      get: (key) => {
        seen.push(key);
        return Promise.resolve(new TextEncoder().encode(key));
      },
    };
    const rounds = new RoundStore(inner);
    await rounds.get('first');
    // Started after the first read, never awaited: as a refusal leaves its namesake's search behind.
    void rounds.get('late');
    expect(rounds.rounds).toEqual([['first']]);
    await rounds.settled();
    expect(rounds.rounds).toEqual([['first'], ['late']]);
    expect(seen).toEqual(['first', 'late']);
  });
});
