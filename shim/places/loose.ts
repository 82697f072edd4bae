/**
 * Words people put around a place that are not part of its name: "downtown Chicago", "near Austin, TX", "the Denver
 * area", "metro Atlanta". Pure; location.ts parses the place without them as a fallback, and resolve.ts answers it
 * only when the text as sent names no place ("Near North Side, IL" and "Central Islip" are places themselves).
 * "near me" beside a place ("Brooklyn near me") and "I'm in" before it are left out before anything else is read.
 */

/** Who the person is looking for, said before the place ("personal injury lawyers near Chicago"). */
const LAWYERS = String.raw`(?:(?:personal\s+)?injury\s+|(?:car\s+)?accident\s+)?(?:lawyers?|attorneys?|law\s+(?:firms?|offices?))`;
/** The person's own position ("near me"): never a place, and its "me" is never Maine. */
const HERE = String.raw`(?:near|around|close\s+to)\s+(?:me|here|us)|nearby`;
/** The person speaking of themselves before the place ("I'm in", "we live in", "my zip is"). */
const SELF_RE =
  /^(?:(?:i|we)['’]?(?:m|re)|i\s+am|we\s+are|(?:i|we)\s+(?:live|work|am|are)|my\s+(?:zip(?:\s+code)?|address|location|city)\s+is)\s+(?:(?:in|near|around|at)\s+)?/i;
const HERE_LEADING_RE = new RegExp(
  String.raw`^(?:${LAWYERS}\s+)?(?:${HERE})(?:\s*,\s*|\s+(?:in|at|around)\s+|\s+)`,
  'i',
);
const HERE_TRAILING_RE = new RegExp(String.raw`[\s,]+(?:${LAWYERS}\s+)?(?:${HERE})$`, 'i');
const LAWYERS_ONLY_RE = new RegExp(String.raw`^${LAWYERS}$`, 'i');

/** Before the place: who is sought, where the person is relative to it, or which part of it. */
const LEADING_RE = new RegExp(
  String.raw`^(?:${LAWYERS}\s+)?(?:(?:in|near|around|outside(?:\s+of)?|close\s+to|just\s+outside(?:\s+of)?)\s+(?:the\s+)?(?:(?:downtown|midtown|uptown|(?:north|south|east|west)\s?side|central|greater|metro|metropolitan)\s+)?|(?:the\s+)?(?:downtown|midtown|uptown|(?:north|south|east|west)\s?side|central|greater|metro|metropolitan)\s+)?`,
  'i',
);
/** After the place: the area around it. */
const TRAILING_RE =
  /\s+(?:area|metro(?:politan)?(?:\s+area)?|region|vicinity|suburbs|downtown|city\s+cent(?:er|re)|and\s+(?:the\s+)?surrounding\s+areas?)$/i;

/** The place in `text` without the words around it, or null when there are none (or nothing is left). */
export function looseCore(text: string): string | null {
  const s = text.trim();
  const core = s.replace(LEADING_RE, '').replace(TRAILING_RE, '').trim();
  // Keeps "Chicago, IL area" -> "Chicago, IL" and drops a comma the trailing words leave ("Chicago, area").
  const tidy = core.replace(/[\s,]+$/, '');
  return tidy === s || !/\p{L}|\d/u.test(tidy) ? null : tidy;
}

/** The place in `text` without "near me", "I'm in" and the like around it ("Brooklyn near me"), or null when there is none (or nothing else). */
export function hereCore(text: string): string | null {
  const s = text.trim();
  const core = s.replace(SELF_RE, '').replace(HERE_LEADING_RE, '').replace(HERE_TRAILING_RE, '').trim();
  return core === s || !/\p{L}|\d/u.test(core) || LAWYERS_ONLY_RE.test(core) ? null : core;
}
