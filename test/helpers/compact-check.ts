/**
 * Checks an MCP tool's compact structuredContent against the REST body of the same call, field by field, written
 * apart from shim/mcp/compact.ts: every firm and office the person needs is there with the REST values, and the
 * disclosure travels with it.
 */
import { expect } from 'vitest';

type Json = Record<string, unknown>;
type Rest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- REST bodies read loosely

function visibilityOf(v: Rest | null): Json | null {
  return v === null ? null : { top3: v.top3_share_pct, shown: v.appears_share_pct };
}

/** A find_injury_attorneys compact answer against the GET /v1/attorneys body. */
export function expectCompactSearch(compact: unknown, rest: Rest): void {
  const c = compact as Rest;
  expect(c.covered).toBe(rest.covered);
  expect(c.location).toMatchObject({
    lat: rest.location.lat,
    lng: rest.location.lng,
    state: rest.location.state,
    zip: rest.location.zip,
  });
  expect(c.location.note).toBe(rest.location.note);
  expect(c.radius_miles_used).toBe(rest.radius_miles_used);
  expect(c.firms_within_radius).toBe(rest.firms_within_radius);
  expect(c.disclosure).toBe(rest.disclosure);
  // Firms to show: show several. None: never asked to show firms (say the line, or that none is near).
  if (rest.results.length > 0) expect(c.relaying).toMatch(/several firms/);
  else expect(c.relaying).not.toMatch(/several firms/);
  if (!rest.covered) {
    expect(c.say_to_person).toBe(rest.disclosure);
    expect(c.relaying).toMatch(/say_to_person/);
  }
  expect(c.results.length).toBe(rest.results.length);
  rest.results.forEach((r: Rest, i: number) => {
    const got = c.results[i] as Rest;
    expect(got).toMatchObject({
      listing_id: r.listing_id,
      name: r.name,
      address: r.address,
      distance_miles: r.distance_miles,
      phone: r.phone,
      website: r.website,
      sponsored: r.sponsored,
      offices_within_radius: r.offices_within_radius,
    });
    if (r.hours === null) expect(got.hours).toBeNull();
    else expect(got.hours).toContain(r.hours.timezone);
    expect(visibilityOf(got.map_visibility)).toEqual(visibilityOf(r.map_visibility));
  });
}

/** A get_firm compact answer against the GET /v1/firms/{id} body: every other office shown is the firm's, and the count. */
export function expectCompactFirm(compact: unknown, rest: Rest, maxOthers: number): void {
  const c = compact as Rest;
  expect(c.listing_id).toBe(rest.listing_id);
  expect(c.firm).toMatchObject({ name: rest.firm.name, website: rest.firm.website, sponsored: rest.firm.sponsored });
  expect(c.office.address).toContain(rest.office.address);
  expect(c.office.phone).toBe(rest.office.phone);
  expect(c.other_offices_total).toBe(rest.other_offices.length);
  expect(c.other_offices.length).toBe(Math.min(maxOthers, rest.other_offices.length));
  const byId = new Map<string, Rest>(rest.other_offices.map((o: Rest) => [o.listing_id, o]));
  for (const o of c.other_offices as Rest[]) {
    const full = byId.get(o.listing_id);
    expect(full, o.listing_id).toBeDefined();
    expect(o.address).toContain(full?.address);
    expect(o.phone).toBe(full?.phone);
  }
  expect(c.disclosure).toBe(rest.disclosure);
  expect(c.relaying).toMatch(/exactly as returned/);
}

/** A get_coverage compact answer against the GET /v1/coverage body. */
export function expectCompactCoverage(compact: unknown, rest: Rest): void {
  const c = compact as Rest;
  expect(c).toMatchObject({ version: rest.version, week_of: rest.week_of, dataset: rest.dataset, totals: rest.totals });
  expect(c.metros).toEqual(
    rest.metros.map((m: Rest) => ({ slug: m.slug, name: m.name, firms: m.firms, offices: m.offices })),
  );
  expect(c.disclosure).toBe(rest.disclosure);
  expect(c.attribution).toBe(rest.attribution.notice);
}
