/** ISO week arithmetic. */

/** Monday of ISO week `week` ("2026-W47") as YYYY-MM-DD (UTC calendar). */
export function mondayOfIsoWeek(week: string): string {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!m) throw new Error(`not an ISO week: ${week}`);
  const year = Number(m[1]);
  const w = Number(m[2]);
  // Week 1 is the week containing 4 January.
  const jan4 = Date.UTC(year, 0, 4);
  const jan4Dow = (new Date(jan4).getUTCDay() + 6) % 7; // Monday = 0
  const monday = jan4 - jan4Dow * 86_400_000 + (w - 1) * 7 * 86_400_000;
  return new Date(monday).toISOString().slice(0, 10);
}

/** Number of ISO weeks in `year` (52 or 53). */
export function isoWeeksInYear(year: number): number {
  const dec28 = new Date(Date.UTC(year, 11, 28));
  const thursday = new Date(dec28.getTime() + (3 - ((dec28.getUTCDay() + 6) % 7)) * 86_400_000);
  const jan1 = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - jan1) / 86_400_000 / 7) + 1;
}

/**
 * `week` as the week folders are named: a lower-case w (`2026-w47`) is read as `2026-W47`, so that CLIs accept it and
 * check it at once; anything else is returned as given, for isoWeekProblem to name.
 */
export function normaliseIsoWeek(week: string): string {
  return /^\d{4}-w\d{2}$/.test(week) ? week.toUpperCase() : week;
}

/** Why `week` is not an ISO week such as 2026-W47 (format, or a week number its year does not have), or null when it is one. */
export function isoWeekProblem(week: string): string | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (m === null) return `must be an ISO week like 2026-W47, got ${JSON.stringify(week)}`;
  const weeks = isoWeeksInYear(Number(m[1]));
  const w = Number(m[2]);
  if (w < 1 || w > weeks) return `${week} does not exist: ${m[1]} has ISO weeks W01 to W${weeks}`;
  return null;
}
