/**
 * The generator's self-check of every stored office, by hand: `StoredOffice.parse` (shim/format/site-format.ts, the
 * reference) of a million offices made a deep copy of each and was tens of seconds at the national run's peak heap.
 * `isStoredOffice` says true only where zod would accept; anything else goes to zod, which throws with its reason. Hours
 * and brand objects are shared between offices (see offices.ts), so each is checked once.
 * test/stored-office-check.test.ts holds it to zod.
 */
import { StoredOffice } from '../../shim/format/site-format.ts';
import type { StoredOfficeT } from '../../shim/format/site-format.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const isPct = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

function isHours(v: unknown): boolean {
  if (!isObject(v) || !isString(v.timezone) || !isObject(v.weekly)) return false;
  const weekly = v.weekly;
  return DAYS.every((d) => {
    const day = weekly[d];
    return (
      Array.isArray(day) &&
      day.every(
        (i: unknown) =>
          isObject(i) && isString(i.opens) && CLOCK.test(i.opens) && isString(i.closes) && CLOCK.test(i.closes),
      )
    );
  });
}

const isVisibility = (v: unknown): boolean => isObject(v) && isPct(v.top3_share_pct) && isPct(v.appears_share_pct);

function isBrand(v: unknown): boolean {
  if (!isObject(v) || !isPct(v.top3_share_pct) || !isPct(v.appears_share_pct)) return false;
  const n = v.offices_measured;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** A checker remembering the shared hours and brand objects it has already accepted. */
export function storedOfficeChecker(): (o: unknown) => boolean {
  const ok = new WeakSet<object>();
  const once = (v: unknown, check: (v: unknown) => boolean): boolean => {
    if (v === null) return true;
    if (typeof v === 'object' && ok.has(v)) return true;
    if (!check(v)) return false;
    ok.add(v as object);
    return true;
  };
  return (o) => {
    if (!isObject(o)) return false;
    if (
      !isString(o.listing_id) ||
      !isString(o.firm_id) ||
      !isString(o.name) ||
      !isString(o.address) ||
      !isString(o.city) ||
      !isString(o.state)
    )
      return false;
    if (
      !isStringOrNull(o.zip) ||
      !isStringOrNull(o.phone) ||
      !isStringOrNull(o.website_url) ||
      !isStringOrNull(o.website_domain)
    )
      return false;
    if (!isStringOrNull(o.primary_category) || !isStringOrNull(o.metro)) return false;
    if (typeof o.lat !== 'number' || !Number.isFinite(o.lat) || typeof o.lng !== 'number' || !Number.isFinite(o.lng))
      return false;
    if (typeof o.google_listing_claimed !== 'boolean' || typeof o.sponsored !== 'boolean') return false;
    if (o.profile_type !== 'standard' && o.profile_type !== 'enhanced') return false;
    if (!once(o.hours, isHours) || (o.visibility !== null && !isVisibility(o.visibility)) || !once(o.brand, isBrand))
      return false;
    return (o.metro === null) === (o.visibility === null) && (o.brand === null || o.metro !== null);
  };
}

/** Throws zod's error for the first office of `offices` that StoredOffice refuses. */
export function checkStoredOffices(offices: readonly StoredOfficeT[]): void {
  const fine = storedOfficeChecker();
  for (const o of offices) if (!fine(o)) StoredOffice.parse(o);
}
