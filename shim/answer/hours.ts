/** Readable opening-hours lines from the weekly intervals: the one implementation, used by the shim when shaping. */
import type { HoursT, OpeningIntervalT } from '../contract/schemas.ts';

/** A day's key in Hours.weekly. */
export type DayName = keyof HoursT['weekly'];

/** Day names Monday first, as in the Hours schema. */
export const DAY_NAMES: readonly DayName[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_LABELS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Minutes in a day; "24:00" (end of day) is this many minutes. */
export const DAY_MINUTES = 24 * 60;

const pad = (n: number): string => String(n).padStart(2, '0');
/** "HH:MM" from minutes since midnight (0..1440; 1440 gives "24:00"). */
export const clock = (m: number): string => `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

function label12(m: number): string {
  const h = Math.floor(m / 60) % 24;
  const suffix = h < 12 ? 'AM' : 'PM';
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}:${pad(m % 60)} ${suffix}`;
}

function dayText(intervals: readonly OpeningIntervalT[]): string {
  if (intervals.length === 0) return 'Closed';
  const only = intervals.length === 1 ? intervals[0] : undefined;
  if (only !== undefined && minutesOf(only.opens) === 0 && minutesOf(only.closes) === DAY_MINUTES)
    return 'Open 24 hours';
  return intervals.map((i) => `${label12(minutesOf(i.opens))} – ${label12(minutesOf(i.closes))}`).join(', ');
}

/**
 * Hours.text: one line per day, Monday first, e.g. "Monday: 9:00 AM – 5:00 PM", several intervals joined by ", ",
 * "Saturday: Closed", "Sunday: Open 24 hours"; "24:00" reads "12:00 AM". Expects sorted, merged intervals (as stored).
 */
export function hoursText(weekly: HoursT['weekly']): string[] {
  return DAY_NAMES.map((name, i) => `${DAY_LABELS[i]}: ${dayText(weekly[name])}`);
}
