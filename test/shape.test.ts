/**
 * Shaping stored objects into public bodies: schema-valid, in the schemas' field order, links on the service's own domain,
 * and the compact stored records expanded (hours text, map_visibility and brand_index from the record and meta.json).
 */
import { firmNearPoint } from '../shim/answer/firm-near.ts';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BRAND_INDEX_WHAT, DISCLOSURE, MAP_VISIBILITY_WHAT, SERVICE_NAME } from '../shim/contract/constants.ts';
import { CoverageResponse, FirmResponse, Office, Result } from '../shim/contract/schemas.ts';
import { shapeCoverage, shapeFirm, shapeResult, withUtmSource, type ShapeMeta } from '../shim/answer/shape.ts';
import { CoverageDoc, FirmDoc, StoredOffice, type StoredOfficeT } from '../shim/format/site-format.ts';
import { StoreError } from '../shim/store/types.ts';

const BASE = 'http://127.0.0.1:8787';

/** Keys in the order a schema declares them. */
function schemaKeys(schema: z.ZodObject): string[] {
  return Object.keys(schema.shape);
}

// Stored objects as the generator might write them, with keys deliberately out of order.
const storedOffice: StoredOfficeT = StoredOffice.parse({
  sponsored: false,
  profile_type: 'enhanced',
  listing_id: 'l_abcdefghijklmnop',
  firm_id: 'f_example',
  name: 'Example Injury Law',
  address: '100 Main St Ste 200',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
  lat: 30.27,
  lng: -97.74,
  phone: '(512) 555-0123',
  website_url: 'https://example-injury.example/austin?ref=map',
  website_domain: 'example-injury.example',
  primary_category: 'Personal injury attorney',
  google_listing_claimed: true,
  brand: { offices_measured: 2, appears_share_pct: 50, top3_share_pct: 20 },
  visibility: { appears_share_pct: 40, top3_share_pct: 12.5 },
  metro: 'austin',
  hours: {
    weekly: {
      sun: [],
      mon: [{ opens: '09:00', closes: '17:00' }],
      tue: [{ opens: '09:00', closes: '17:00' }],
      wed: [
        { opens: '09:00', closes: '12:00' },
        { opens: '13:00', closes: '24:00' },
      ],
      thu: [{ opens: '00:00', closes: '24:00' }],
      fri: [{ opens: '09:00', closes: '17:00' }],
      sat: [],
    },
    timezone: 'America/Chicago',
  },
});

// What shaping takes from meta.json: the week and each metro's sampling.
const meta: ShapeMeta = {
  version: '2026-W47-0123456789',
  week_of: '2026-11-16',
  metros: {
    austin: { grid_points: 100, queries: 5, grid_samples: 500 },
    houston: { grid_points: 120, queries: 5, grid_samples: 600 },
  },
};

describe('shapeResult', () => {
  it('builds a schema-valid Result in the schema order', () => {
    const r = shapeResult(storedOffice, meta, 3.14159, 2, BASE);
    expect(Result.parse(r)).toEqual(r);
    expect(Object.keys(r)).toEqual(schemaKeys(Result));
    expect(Object.keys(r.hours!.weekly)).toEqual(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
    expect(Object.keys(r.map_visibility!)).toEqual(schemaKeys(Result.shape.map_visibility.unwrap()));
    expect(Object.keys(r.brand_index!)).toEqual(schemaKeys(Result.shape.brand_index.unwrap()));
    expect(Object.keys(r.hours!)).toEqual(schemaKeys(Result.shape.hours.unwrap()));
  });

  it('rebuilds map_visibility and brand_index from the record, meta.json and the fixed texts', () => {
    const r = shapeResult(storedOffice, meta, 1, 1, BASE);
    expect(r.map_visibility).toEqual({
      metro: 'austin',
      week_of: '2026-11-16',
      top3_share_pct: 12.5,
      appears_share_pct: 40,
      grid_samples: 500,
      what_this_is: MAP_VISIBILITY_WHAT,
      grid_points: 100,
      queries: 5,
    });
    expect(r.brand_index).toEqual({
      metro: 'austin',
      week_of: '2026-11-16',
      top3_share_pct: 20,
      appears_share_pct: 50,
      offices_measured: 2,
      what_this_is: BRAND_INDEX_WHAT,
    });
    const unmeasured = shapeResult({ ...storedOffice, metro: null, visibility: null, brand: null }, meta, 1, 1, BASE);
    expect([unmeasured.map_visibility, unmeasured.brand_index]).toEqual([null, null]);
  });

  it('renders one text line per day from the weekly hours, Monday first', () => {
    expect(shapeResult(storedOffice, meta, 1, 1, BASE).hours?.text).toEqual([
      'Monday: 9:00 AM – 5:00 PM',
      'Tuesday: 9:00 AM – 5:00 PM',
      'Wednesday: 9:00 AM – 12:00 PM, 1:00 PM – 12:00 AM',
      'Thursday: Open 24 hours',
      'Friday: 9:00 AM – 5:00 PM',
      'Saturday: Closed',
      'Sunday: Closed',
    ]);
  });

  it('fails with StoreError when the measured metro is missing from meta.json', () => {
    expect(() => shapeResult({ ...storedOffice, metro: 'nowhere' }, meta, 1, 1, BASE)).toThrow(StoreError);
  });

  it('rejects a stored record whose metro and visibility disagree', () => {
    expect(StoredOffice.safeParse({ ...storedOffice, metro: null }).success).toBe(false);
    expect(StoredOffice.safeParse({ ...storedOffice, visibility: null }).success).toBe(false);
    expect(StoredOffice.safeParse({ ...storedOffice, metro: null, visibility: null }).success).toBe(false); // brand without a metro
    expect(StoredOffice.safeParse({ ...storedOffice, metro: null, visibility: null, brand: null }).success).toBe(true);
  });

  it('rounds distance to 2 decimals and links the website through /r/', () => {
    const r = shapeResult(storedOffice, meta, 3.14159, 2, BASE);
    expect(r.distance_miles).toBe(3.14);
    expect(shapeResult(storedOffice, meta, 0.005, 1, BASE).distance_miles).toBe(0.01);
    expect(r.website).toBe(`${BASE}/r/l_abcdefghijklmnop`);
    expect(r.offices_within_radius).toBe(2);
    expect(r.address).toBe('100 Main St Ste 200, Austin, TX 78701');
    expect(JSON.stringify(r)).not.toContain('example-injury.example/austin');
  });

  it('gives no website link when the office has no website', () => {
    const r = shapeResult(
      {
        ...storedOffice,
        website_url: null,
        website_domain: null,
        hours: null,
        metro: null,
        visibility: null,
        brand: null,
      },
      meta,
      1,
      1,
      BASE,
    );
    expect(r.website).toBeNull();
    expect(Result.parse(r)).toEqual(r);
  });

  it('never returns ratings or reviews', () => {
    const r = shapeResult({ ...storedOffice, rating: 4.9, user_ratings_total: 321 } as StoredOfficeT, meta, 1, 1, BASE);
    expect(Object.keys(r)).not.toContain('rating');
    expect(JSON.stringify(r)).not.toMatch(/rating|review/i);
  });
});

describe('shapeFirm', () => {
  const firmBrand = { metro: 'austin', top3_share_pct: 20, appears_share_pct: 50, offices_measured: 2 };
  const firmDoc = (other: StoredOfficeT, brand: typeof firmBrand | null = firmBrand) =>
    FirmDoc.parse({
      schema_version: SCHEMA_VERSIONS.firm,
      listing_id: storedOffice.listing_id,
      firm: {
        brand,
        firm_id: 'f_example',
        name: 'Example Injury Law',
        website_url: 'https://example-injury.example/',
        website_domain: 'example-injury.example',
        profile_type: 'enhanced',
        sponsored: false,
      },
      office: storedOffice,
      other_offices: [other],
    });

  it('builds a schema-valid FirmResponse in the schema order', () => {
    const other = { ...storedOffice, listing_id: 'l_bbbbbbbbbbbbbbbb', city: 'Round Rock' };
    const f = shapeFirm(firmDoc(other), meta, BASE);
    expect(FirmResponse.parse(f)).toEqual(f);
    expect(Object.keys(f)).toEqual(schemaKeys(FirmResponse));
    expect(Object.keys(f.firm)).toEqual(schemaKeys(FirmResponse.shape.firm));
    // distance_miles, the last key, only with the person's point (firmNearPoint).
    expect(Object.keys(f.office)).toEqual(schemaKeys(Office).filter((k) => k !== 'distance_miles'));
    const near = firmNearPoint(f, { lat: 30.3, lng: -97.7 });
    expect(FirmResponse.parse(near)).toEqual(near);
    for (const o of [near.office, ...near.other_offices]) expect(Object.keys(o)).toEqual(schemaKeys(Office));
    expect(Object.keys(f.firm.brand_index!)).toEqual(schemaKeys(FirmResponse.shape.firm.shape.brand_index.unwrap()));
    expect(Object.keys(f.office.map_visibility!)).toEqual(schemaKeys(Office.shape.map_visibility.unwrap()));
    expect(f.firm.website).toBe(`${BASE}/r/${storedOffice.listing_id}`);
    expect(f.office.address).toBe('100 Main St Ste 200');
    expect(f.other_offices.map((o) => o.listing_id)).toEqual(['l_bbbbbbbbbbbbbbbb']);
    expect(f.disclosure).toBe(DISCLOSURE);
    expect(JSON.stringify(f)).not.toContain('website_url');
  });

  it("shows the firm's brand index in its own metro, which can differ from the offices'", () => {
    const other = {
      ...storedOffice,
      listing_id: 'l_bbbbbbbbbbbbbbbb',
      metro: 'houston',
      visibility: { top3_share_pct: 1, appears_share_pct: 2 },
      brand: null,
    };
    const f = shapeFirm(firmDoc(other, { ...firmBrand, metro: 'houston' }), meta, BASE);
    expect(f.firm.brand_index).toEqual({
      metro: 'houston',
      week_of: '2026-11-16',
      top3_share_pct: 20,
      appears_share_pct: 50,
      offices_measured: 2,
      what_this_is: BRAND_INDEX_WHAT,
    });
    expect(f.office.map_visibility).toMatchObject({ metro: 'austin', grid_samples: 500 });
    expect(f.other_offices[0]?.map_visibility).toMatchObject({
      metro: 'houston',
      grid_points: 120,
      grid_samples: 600,
      top3_share_pct: 1,
      appears_share_pct: 2,
    });
    expect(shapeFirm(firmDoc(other, null), meta, BASE).firm.brand_index).toBeNull();
  });
});

describe('shapeCoverage', () => {
  it('drops schema_version, adds the served version first and keeps the schema order', () => {
    const doc = CoverageDoc.parse({
      schema_version: 1,
      disclosure: DISCLOSURE,
      metros: [
        {
          week_of: '2026-11-16',
          queries: 5,
          grid_samples: 500,
          grid_points: 100,
          offices: 10,
          firms: 8,
          center: { lng: -97.74, lat: 30.27 },
          name: 'Austin',
          slug: 'austin',
        },
      ],
      totals: { metros: 1, offices: 10, firms: 8 },
      dataset: { synthetic: true, name: 'sample' },
      generated_at: '2026-11-22T00:00:00Z',
      week_of: '2026-11-16',
    });
    const c = shapeCoverage(doc, '2026-W47-abc');
    expect(c.version).toBe('2026-W47-abc');
    expect(CoverageResponse.parse(c)).toEqual(c);
    expect(Object.keys(c)).toEqual(schemaKeys(CoverageResponse));
    expect(Object.keys(c.metros[0]!)).toEqual(schemaKeys(CoverageResponse.shape.metros.element));
    expect(Object.keys(c.metros[0]!.center)).toEqual(['lat', 'lng']);
    expect(c).not.toHaveProperty('schema_version');
  });
});

describe('withUtmSource', () => {
  it('sets utm_source, replacing an existing one and keeping other parameters', () => {
    expect(withUtmSource('https://a.example/')).toBe(`https://a.example/?utm_source=${SERVICE_NAME}`);
    expect(withUtmSource('https://a.example/x?utm_source=maps&ref=1#top')).toBe(
      `https://a.example/x?ref=1&utm_source=${SERVICE_NAME}#top`,
    );
    // Other parameters keep their exact encoding (a firm's tracking links must not be rewritten).
    expect(withUtmSource('https://a.example/?q=a%20b&UTM=1&utm%5Fsource=x')).toBe(
      `https://a.example/?q=a%20b&UTM=1&utm_source=${SERVICE_NAME}`,
    );
    expect(withUtmSource('http://a.example/?a=1&b=2')).toBe(`http://a.example/?a=1&b=2&utm_source=${SERVICE_NAME}`);
  });

  it('refuses anything that is not an http(s) URL', () => {
    expect(withUtmSource('javascript:alert(1)')).toBeNull();
    expect(withUtmSource('not a url')).toBeNull();
  });
});
