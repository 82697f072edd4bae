/**
 * Words people put around a place that are not part of its name: "downtown Chicago", "near Austin, TX", "the Denver
 * area", "metro Atlanta". Pure; location.ts parses the place without them as a fallback, and resolve.ts answers it
 * only when the text as sent names no place ("Near North Side, IL" and "Central Islip" are places themselves).
 */

/** Before the place: where the person is relative to it, or which part of it. */
const LEADING_RE =
  /^(?:(?:in|near|around|outside(?:\s+of)?|close\s+to|just\s+outside(?:\s+of)?)\s+(?:the\s+)?(?:(?:downtown|central|greater|metro|metropolitan)\s+)?|(?:the\s+)?(?:downtown|central|greater|metro|metropolitan)\s+)/i;
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
