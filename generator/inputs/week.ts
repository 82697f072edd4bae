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
