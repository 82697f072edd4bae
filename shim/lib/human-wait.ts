/** A wait in seconds said the way a person says it ("45 seconds", "12 minutes", "1 hour"), and the clock time it ends. */

const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** `seconds` as words: seconds under a minute, whole minutes (rounded up) under an hour, else hours and minutes. */
export function humanWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return plural(s, 'second');
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

/** The UTC clock time (HH:MM UTC) `seconds` after `now`, rounded up to the minute. */
export function clockAfter(now: Date, seconds: number): string {
  const at = new Date(Math.ceil((now.getTime() + seconds * 1000) / 60_000) * 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')} UTC`;
}
