/** ISO week names (`2026-W47`): how many weeks a year has, and whether a name given by an operator is one. */

/** How an ISO week is written, for usage errors and --help. */
export const ISO_WEEK_FORM = 'an ISO week YYYY-Www, e.g. 2026-W47';

/** Number of ISO weeks in `year` (52 or 53). */
export function isoWeeksInYear(year: number): number {
  const dec28 = new Date(Date.UTC(year, 11, 28));
  const thursday = new Date(dec28.getTime() + (3 - ((dec28.getUTCDay() + 6) % 7)) * 86_400_000);
  const jan1 = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - jan1) / 86_400_000 / 7) + 1;
}

/** `week` as the week folders are named: a lower-case w (`2026-w47`) is read as `2026-W47`; anything else as given. */
export function normaliseIsoWeek(week: string): string {
  return /^\d{4}-w\d{2}$/.test(week) ? week.toUpperCase() : week;
}

/** Why `week` (a lower-case w allowed) is not an ISO week (its form, or a week its year lacks); null if it is one. */
export function isoWeekProblem(week: string): string | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(normaliseIsoWeek(week));
  if (m === null) return `must be ${ISO_WEEK_FORM}, got ${JSON.stringify(week)}`;
  const weeks = isoWeeksInYear(Number(m[1]));
  const w = Number(m[2]);
  if (w < 1 || w > weeks)
    return `must be ${ISO_WEEK_FORM}, got ${JSON.stringify(week)}: ${m[1]} has ISO weeks W01 to W${weeks}`;
  return null;
}
