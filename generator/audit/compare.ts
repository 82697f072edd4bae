/** Recomputed answer vs live answer of one query: every difference as one readable "expected ..., got ..." line. */
import type { AttorneysResponseT, ResultT } from '../../shim/contract/schemas.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';
import { greatCircleMiles, twoDecimals, type ExpectedAnswer, type ExpectedResult } from './recompute.ts';

/** What compareAnswer needs besides the two answers. */
export interface CompareContext {
  /** The point the recomputation used, in decimal degrees. */
  lat: number;
  lng: number;
  radiusMiles: number;
  limit: number;
  /** Every published office by listing_id (to say where an unexpected live result really is). */
  officesById: ReadonlyMap<string, StoredOfficeT>;
}

/** How many per-position lines to print before summarising. */
const MAX_POSITION_LINES = 8;

function describeExpected(r: ExpectedResult): string {
  return `${r.office.listing_id} (${twoDecimals(r.miles).toFixed(2)} mi, firm ${r.office.firm_id})`;
}

function describeGot(r: ResultT, ctx: CompareContext): string {
  const o = ctx.officesById.get(r.listing_id);
  if (o === undefined)
    return `${r.listing_id} (${r.distance_miles.toFixed(2)} mi, not a published office of this version)`;
  const miles = twoDecimals(greatCircleMiles(ctx.lat, ctx.lng, o.lat, o.lng));
  return `${r.listing_id} (${r.distance_miles.toFixed(2)} mi${miles === r.distance_miles ? '' : `; its published record is at ${miles.toFixed(2)} mi`})`;
}

function whereIs(id: string, ctx: CompareContext): string {
  const o = ctx.officesById.get(id);
  if (o === undefined) return 'not a published office of this version';
  const miles = greatCircleMiles(ctx.lat, ctx.lng, o.lat, o.lng);
  return `published at ${miles.toFixed(4)} mi (firm ${o.firm_id})${miles > ctx.radiusMiles ? ', outside the radius' : ''}`;
}

function sameRecord(exp: ExpectedResult, got: ResultT, out: string[], pos: number): void {
  const o = exp.office;
  const at = `position ${pos} (${o.listing_id})`;
  const want = twoDecimals(exp.miles);
  if (got.distance_miles !== want)
    out.push(
      `${at}: distance_miles expected ${want.toFixed(2)} (exact ${exp.miles.toFixed(6)}), got ${got.distance_miles}`,
    );
  if (got.offices_within_radius !== exp.officesWithinRadius)
    out.push(`${at}: offices_within_radius expected ${exp.officesWithinRadius}, got ${got.offices_within_radius}`);
  if (got.name !== o.name) out.push(`${at}: name expected ${JSON.stringify(o.name)}, got ${JSON.stringify(got.name)}`);
  const address = `${o.address}, ${o.city}, ${o.state}${o.zip === null ? '' : ` ${o.zip}`}`;
  if (got.address !== address)
    out.push(`${at}: address expected ${JSON.stringify(address)}, got ${JSON.stringify(got.address)}`);
  if (got.profile_type !== o.profile_type)
    out.push(`${at}: profile_type expected ${o.profile_type}, got ${got.profile_type}`);
  if (got.sponsored !== o.sponsored) out.push(`${at}: sponsored expected ${o.sponsored}, got ${got.sponsored}`);
  const v = got.map_visibility;
  const wantVis =
    o.visibility === null ? null : `${o.metro} ${o.visibility.top3_share_pct}/${o.visibility.appears_share_pct}`;
  const gotVis = v === null ? null : `${v.metro} ${v.top3_share_pct}/${v.appears_share_pct}`;
  if (wantVis !== gotVis)
    out.push(`${at}: map_visibility (metro top3/appears) expected ${wantVis ?? 'null'}, got ${gotVis ?? 'null'}`);
}

/** Differences between the recomputed and the live answer (empty when they agree). */
export function compareAnswer(expected: ExpectedAnswer, got: AttorneysResponseT, ctx: CompareContext): string[] {
  const out: string[] = [];
  if (got.covered !== expected.covered) out.push(`covered: expected ${expected.covered}, got ${got.covered}`);
  if (got.location.metro !== expected.metro)
    out.push(`location.metro: expected ${expected.metro ?? 'null'}, got ${got.location.metro ?? 'null'}`);
  if (got.radius_miles_used !== ctx.radiusMiles)
    out.push(`radius_miles_used: expected ${ctx.radiusMiles}, got ${got.radius_miles_used}`);
  if (got.firms_within_radius !== expected.firmsWithinRadius)
    out.push(`firms_within_radius: expected ${expected.firmsWithinRadius}, got ${got.firms_within_radius}`);
  const want = expected.results;
  if (got.results.length !== want.length)
    out.push(`results: expected ${want.length} (limit ${ctx.limit}), got ${got.results.length}`);

  let positionLines = 0;
  let positionDiffs = 0;
  for (let i = 0; i < Math.max(want.length, got.results.length); i++) {
    const e = want[i];
    const g = got.results[i];
    if (e !== undefined && g !== undefined && e.office.listing_id === g.listing_id) {
      sameRecord(e, g, out, i + 1);
      continue;
    }
    positionDiffs++;
    if (positionLines++ < MAX_POSITION_LINES)
      out.push(
        `position ${i + 1}: expected ${e === undefined ? 'nothing' : describeExpected(e)}, got ${g === undefined ? 'nothing' : describeGot(g, ctx)}`,
      );
  }
  if (positionLines > MAX_POSITION_LINES) out.push(`... ${positionDiffs - MAX_POSITION_LINES} more positions differ`);

  if (positionDiffs > 0) {
    const gotIds = new Set(got.results.map((r) => r.listing_id));
    const wantIds = new Set(want.map((r) => r.office.listing_id));
    for (const r of want)
      if (!gotIds.has(r.office.listing_id)) out.push(`missing from the live answer: ${describeExpected(r)}`);
    for (const r of got.results)
      if (!wantIds.has(r.listing_id))
        out.push(`not in the recomputed answer: ${r.listing_id}, ${whereIs(r.listing_id, ctx)}`);
  }
  return out;
}
