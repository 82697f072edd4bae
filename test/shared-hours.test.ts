/** Equal opening hours of the offices shown are one object (shim/format/shared-hours.ts); unequal hours never are. */
import { describe, expect, it } from 'vitest';
import { StoredOffice, type StoredHoursT, type StoredOfficeT } from '../shim/format/site-format.ts';
import { withSharedHours } from '../shim/format/shared-hours.ts';

const closed = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
const nineToFive = [{ opens: '09:00', closes: '17:00' }];

function office(id: string, hours: StoredHoursT | null): StoredOfficeT {
  return StoredOffice.parse({
    listing_id: id,
    firm_id: 'f_1',
    name: 'A Law Firm',
    address: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    zip: null,
    lat: 39.8,
    lng: -89.65,
    phone: null,
    website_url: null,
    website_domain: null,
    primary_category: null,
    google_listing_claimed: false,
    hours,
    metro: null,
    visibility: null,
    brand: null,
    profile_type: 'standard',
    sponsored: false,
  });
}

describe('withSharedHours', () => {
  it('gives offices with equal hours one hours object, and changes nothing else', () => {
    const hours = (): StoredHoursT => ({
      timezone: 'America/Chicago',
      weekly: { ...closed, mon: structuredClone(nineToFive), tue: structuredClone(nineToFive) },
    });
    const a = withSharedHours(office('l_shared_a', hours()));
    const b = office('l_shared_b', hours());
    const text = JSON.stringify(b);
    const own = b.hours;
    expect(withSharedHours(b)).toBe(b);
    expect(b.hours).not.toBe(own);
    expect(b.hours).toBe(a.hours);
    expect(JSON.stringify(b)).toBe(text);
  });

  it('never shares hours that differ in time zone, in a time, or in the day of an interval', () => {
    const base = (): StoredHoursT => ({
      timezone: 'America/Denver',
      weekly: { ...closed, wed: structuredClone(nineToFive) },
    });
    const variants: StoredHoursT[] = [
      base(),
      { ...base(), timezone: 'America/Phoenix' },
      { ...base(), timezone: 'America/Denver|' },
      { ...base(), weekly: { ...closed, wed: [{ opens: '09:00', closes: '17:30' }] } },
      { ...base(), weekly: { ...closed, thu: structuredClone(nineToFive) } },
      { ...base(), weekly: { ...closed, wed: [...structuredClone(nineToFive), { opens: '18:00', closes: '20:00' }] } },
      { ...base(), weekly: closed },
    ];
    const shown = variants.map((h, i) => withSharedHours(office(`l_differ_${i}`, h)));
    shown.forEach((o, i) => expect(JSON.stringify(o.hours)).toBe(JSON.stringify(variants[i])));
    expect(new Set(shown.map((o) => o.hours)).size).toBe(variants.length);
  });

  it('leaves an office without hours as it is', () => {
    const o = office('l_no_hours', null);
    expect(withSharedHours(o).hours).toBeNull();
  });
});
