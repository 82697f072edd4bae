/**
 * The generator's hand self-check of stored offices (generator/model/stored-office-check.ts) against zod's StoredOffice: it
 * accepts every office of the sample, and on broken variants of them it never accepts what zod refuses, so a refused
 * office always reaches zod and its error.
 */
import { describe, expect, it } from 'vitest';
import { sampleOffices } from './helpers/sample-offices.ts';
import { checkStoredOffices, storedOfficeChecker } from '../generator/model/stored-office-check.ts';
import { StoredOffice, type StoredOfficeT } from '../shim/format/site-format.ts';

const BAD: unknown[] = [undefined, null, 0, -1, 100.5, Number.NaN, Infinity, 1.5, '', 'x', true, [], {}];

function variants(o: StoredOfficeT): unknown[] {
  const base = o as unknown as Record<string, unknown>;
  const out: unknown[] = [null, [], 'x', { ...base, extra: 1 }];
  for (const k of Object.keys(base)) {
    const { [k]: _dropped, ...without } = base;
    out.push(without);
    for (const v of BAD) out.push({ ...base, [k]: v });
  }
  const week = {
    timezone: 'America/Chicago',
    weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
  };
  const hours: unknown[] = [
    week,
    { ...week, text: ['a'] },
    { ...week, weekly: { ...week.weekly, mon: [{ opens: '09:00', closes: '24:00' }] } },
    { ...week, weekly: { ...week.weekly, mon: [{ opens: '24:00', closes: '24:01' }] } },
    { ...week, weekly: { ...week.weekly, mon: [{ opens: '9:00', closes: '17:00' }] } },
    { ...week, weekly: { ...week.weekly, mon: [{ opens: '09:00' }] } },
    { ...week, weekly: { ...week.weekly, mon: [null] } },
    { ...week, weekly: { ...week.weekly, sun: undefined } },
    { ...week, timezone: 5 },
    { weekly: week.weekly },
  ];
  for (const h of hours) out.push({ ...base, hours: h });
  for (const v of [
    { top3_share_pct: 0, appears_share_pct: 100 },
    { top3_share_pct: -0.1, appears_share_pct: 1 },
    { top3_share_pct: 1 },
    { top3_share_pct: '1', appears_share_pct: 1 },
  ]) {
    out.push({ ...base, metro: 'm', visibility: v });
  }
  for (const b of [
    { top3_share_pct: 1, appears_share_pct: 2, offices_measured: 0 },
    { top3_share_pct: 1, appears_share_pct: 2, offices_measured: 1.5 },
    { top3_share_pct: 1, appears_share_pct: 2, offices_measured: -1 },
    { top3_share_pct: 101, appears_share_pct: 2, offices_measured: 1 },
  ]) {
    out.push({ ...base, metro: 'm', visibility: { top3_share_pct: 1, appears_share_pct: 1 }, brand: b });
  }
  // The refinement: metro and visibility null together, brand only with a metro.
  out.push({ ...base, metro: null, visibility: null, brand: null });
  out.push({ ...base, metro: 'm', visibility: null, brand: null });
  out.push({ ...base, metro: null, visibility: { top3_share_pct: 1, appears_share_pct: 1 }, brand: null });
  out.push({
    ...base,
    metro: null,
    visibility: null,
    brand: { top3_share_pct: 1, appears_share_pct: 2, offices_measured: 1 },
  });
  return out;
}

describe('hand check of stored offices', () => {
  it('accepts every office of the sample, as zod does', async () => {
    const offices = await sampleOffices();
    const fine = storedOfficeChecker();
    for (const o of offices) {
      expect(fine(o), o.listing_id).toBe(true);
      expect(StoredOffice.safeParse(o).success).toBe(true);
    }
    expect(offices.filter((o) => o.hours !== null && o.visibility !== null && o.brand !== null).length).toBeGreaterThan(
      100,
    );
    expect(() => checkStoredOffices(offices)).not.toThrow();
  });

  it('never accepts what zod refuses, and a refused office throws zod error', async () => {
    const offices = await sampleOffices();
    const picks = [offices.find((o) => o.brand !== null), offices.find((o) => o.metro === null), offices[0]].filter(
      (o) => o !== undefined,
    );
    expect(picks.length).toBeGreaterThanOrEqual(2);
    let accepted = 0;
    let refused = 0;
    for (const o of picks) {
      for (const v of variants(o)) {
        // A fresh checker each time, so no shared object is taken on an earlier acceptance.
        const hand = storedOfficeChecker()(structuredClone(v));
        const zod = StoredOffice.safeParse(v).success;
        if (hand) {
          expect(zod, JSON.stringify(v)).toBe(true);
          accepted++;
        }
        if (!zod) {
          refused++;
          expect(() => checkStoredOffices([v as StoredOfficeT])).toThrow();
        }
      }
    }
    expect(accepted).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(200);
  });
});
