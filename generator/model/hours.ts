/** Google-style opening periods (day 0 = Sunday, "HHMM") to stored hours (day names, { opens, closes } "HH:MM"); text is rendered by the shim. */
import { clock, DAY_MINUTES as DAY, DAY_NAMES } from '../../shim/answer/hours.ts';
import type { StoredHoursT } from '../../shim/format/site-format.ts';
import type { PlaceRecordT } from '../inputs/schema.ts';

type Periods = NonNullable<PlaceRecordT['opening_hours']>['periods'];

const WEEK = 7 * DAY;

/** Google day (0 = Sunday) to our index (0 = Monday). */
const mondayIndex = (googleDay: number): number => (googleDay + 6) % 7;
const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2, 4));

/**
 * Convert periods to stored hours. A period that runs past midnight is split at midnight: the first day ends "24:00",
 * the next starts "00:00" (so every interval lies inside its own day). A lone period without close opening Sunday 00:00
 * is open around the clock (Google's convention); any other period without close is open until the end of its day.
 * Overlapping or touching intervals of a day are merged. No periods at all gives null (hours unknown).
 */
export function convertHours(periods: Periods | null, timezone: string): StoredHoursT | null {
  if (periods === null || periods.length === 0) return null;
  // Intervals on a week timeline in minutes from Monday 00:00.
  const spans: [number, number][] = [];
  const only = periods.length === 1 ? periods[0] : undefined;
  const alwaysOpen = only !== undefined && only.close === undefined && only.open.day === 0 && only.open.time === '0000';
  if (alwaysOpen) {
    spans.push([0, WEEK]);
  } else {
    for (const p of periods) {
      const start = mondayIndex(p.open.day) * DAY + minutes(p.open.time);
      if (p.close === undefined) {
        spans.push([start, mondayIndex(p.open.day) * DAY + DAY]);
        continue;
      }
      let end = mondayIndex(p.close.day) * DAY + minutes(p.close.time);
      if (end <= start) end += WEEK; // wraps past Sunday night, or a 24-hour-later close on the same day
      spans.push([start, end]);
    }
  }
  const perDay: [number, number][][] = DAY_NAMES.map(() => []);
  for (const [s, e] of spans) {
    for (let t = s; t < e;) {
      const dayStart = Math.floor(t / DAY) * DAY;
      const cut = Math.min(e, dayStart + DAY);
      perDay[(dayStart / DAY) % 7]?.push([t - dayStart, cut - dayStart]);
      t = cut;
    }
  }
  const weekly = {} as StoredHoursT['weekly'];
  DAY_NAMES.forEach((name, i) => {
    weekly[name] = mergeIntervals(perDay[i] ?? []).map(([s, e]) => ({ opens: clock(s), closes: clock(e) }));
  });
  return { timezone, weekly };
}

function mergeIntervals(list: [number, number][]): [number, number][] {
  const sorted = [...list].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
