/**
 * The changes document's listing diff (ListingDiffer, which hands only records that differ to audit diff's
 * diffOffices) gives what diffOffices gives over all records at once: the sample's offices against a previous version
 * with every kind of difference (listing fields, equal hours in a copy, measurement only, an extra field, removed and
 * added listings), fed in batches as the previous version's record chunks are.
 */
import { describe, expect, it } from 'vitest';
import { sampleOffices } from './helpers/sample-offices.ts';
import { diffOffices } from '../generator/model/office-diff.ts';
import { ListingDiffer } from '../generator/model/changes.ts';
import { StoredOffice, type StoredOfficeT } from '../shim/format/site-format.ts';

/** A previous record of `o` (as read back from JSON: no object shared with the new one), changed by kind `i % 9` (kind 8: unchanged, or other hours). */
function previousOf(o: StoredOfficeT, i: number): StoredOfficeT | null {
  const p = JSON.parse(JSON.stringify(o)) as StoredOfficeT;
  switch (i % 9) {
    case 0:
      return { ...p, name: `${p.name} (old name)` };
    case 1:
      return p.hours === null
        ? {
            ...p,
            hours: {
              timezone: 'America/Chicago',
              weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
            },
          }
        : { ...p, hours: null };
    case 2:
      return p.visibility === null
        ? p
        : { ...p, visibility: { ...p.visibility, top3_share_pct: p.visibility.top3_share_pct + 1 } };
    case 3:
      return null;
    case 4:
      return { ...p, lat: p.lat + 0.001 };
    case 5:
      return { ...p, extra: 1 } as StoredOfficeT;
    case 6:
      return { ...p, sponsored: !p.sponsored, brand: null };
    case 7:
      return { ...p, phone: p.phone === null ? '(555) 555-0100' : null };
    case 8:
      return p.hours === null || i % 2 === 0
        ? p
        : {
            ...p,
            hours: { ...p.hours, timezone: p.hours.timezone === 'America/Denver' ? 'America/Boise' : 'America/Denver' },
          };
    default:
      return p;
  }
}

describe('ListingDiffer', () => {
  it('finds the same added, removed and changed listings as diffOffices over every record', async () => {
    const now = await sampleOffices();
    const previous: StoredOfficeT[] = [];
    now.forEach((o, i) => {
      const p = previousOf(o, i);
      if (p !== null) previous.push(p);
    });
    // Listings only the previous version had.
    for (const o of now.slice(0, 40))
      previous.push({
        ...JSON.parse(JSON.stringify(o)),
        listing_id: `${o.listing_id.slice(0, -1)}_gone`,
      } as StoredOfficeT);
    const current = now.filter((_, i) => i % 11 !== 10);

    const differ = new ListingDiffer(current);
    for (let s = 0; s < previous.length; s += 64) differ.add(previous.slice(s, s + 64));
    const got = differ.result();

    const byId = (a: { listing_id: string }, b: { listing_id: string }): number =>
      a.listing_id < b.listing_id ? -1 : a.listing_id > b.listing_id ? 1 : 0;
    const want = diffOffices(previous, current, Infinity);
    expect(got.changed).toEqual([...want.changed].sort(byId));
    expect(got.added.map((o) => o.listing_id)).toEqual(want.added.map((o) => o.listing_id).sort());
    expect(got.removed.map((o) => o.listing_id)).toEqual(want.removed.map((o) => o.listing_id).sort());
    // Every kind of difference is present; measurement-only and unchanged records are not changes.
    expect(got.changed.length).toBeGreaterThan(now.length / 9);
    expect(got.changed.length).toBeLessThanOrEqual(Math.ceil((7 * now.length) / 9));
    expect(new Set(got.changed.flatMap((c) => c.fields.map((f) => f.field)))).toEqual(
      new Set(['name', 'hours', 'lat', 'phone', 'extra', 'sponsored']),
    );
    expect(got.removed.length).toBe(40 + now.filter((_, i) => i % 9 !== 3 && i % 11 === 10).length);
    expect(got.added.length).toBe(now.filter((_, i) => i % 9 === 3 && i % 11 !== 10).length);
  });

  it("checks only the previous records that differ from this version's, and refuses one that is not a stored office", async () => {
    const now = await sampleOffices();
    const previous = now.map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
    for (const i of [3, 70]) previous[i] = { ...previous[i], name: `${String(previous[i]?.name)} (old name)` };
    const checked: number[] = [];
    const differ = new ListingDiffer(now);
    for (let s = 0; s < previous.length; s += 64) {
      differ.add(previous.slice(s, s + 64), (raw, i) => {
        checked.push(s + i);
        return StoredOffice.parse(raw);
      });
    }
    expect(checked).toEqual([3, 70]);
    const got = differ.result();
    expect(got.changed.map((c) => c.listing_id)).toEqual([now[3]?.listing_id, now[70]?.listing_id].sort());
    expect(got.added).toEqual([]);
    expect(got.removed).toEqual([]);
    // A record that is not a stored office never equals one of this version, so it is checked, and the check throws.
    const bad = new ListingDiffer(now);
    expect(() => bad.add([{ ...previous[0], lat: 'north' }], (raw) => StoredOffice.parse(raw))).toThrow(/lat/);
  });
});
