/**
 * One object for equal opening hours. Offices share a few weekly schedules (37 among the 2,485 offices the 300 warm
 * 1 mi queries of bench/scale/warm-tail.ts first show on the million-office site), yet each record shown held its own
 * copy, seven day arrays and an object per interval, and its own seven rendered lines (shape.ts renders them once per
 * weekly object): a third of what a warm 1 mi query left on the heap for the next young-generation collections to copy
 * (BENCHMARKS.md section 14).
 */
import { LRUCache } from 'lru-cache';
import { StoredHours, type StoredHoursT, type StoredOfficeT } from './site-format.ts';

/** The days of a weekly schedule, in the schema's order. */
const DAYS = Object.keys(StoredHours.shape.weekly.shape) as (keyof StoredHoursT['weekly'])[];
/** Distinct schedules kept, the least recently seen let go past it (a cache: equal hours are shared, never required to be). */
const schedules = new LRUCache<string, StoredHoursT>({ max: 4096 });

/** `office`, whose hours (an object no one else holds) are replaced by the first equal hours seen; its other fields as they were. */
export function withSharedHours(office: StoredOfficeT): StoredOfficeT {
  const hours = office.hours;
  if (hours === null) return office;
  const key = scheduleKey(hours);
  const seen = schedules.get(key);
  if (seen !== undefined) {
    office.hours = seen;
    return office;
  }
  schedules.set(key, hours);
  return office;
}

/** The hours as text that equal hours, and only they, share: the time zone, then each day's intervals. */
function scheduleKey(hours: StoredHoursT): string {
  let key = JSON.stringify(hours.timezone);
  for (const day of DAYS) {
    key += '|';
    for (const { opens, closes } of hours.weekly[day]) key += `${opens}-${closes},`;
  }
  return key;
}
