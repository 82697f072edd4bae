/**
 * What the text of a name that matched no place looks like, when that says what to ask: two places joined by "or"
 * ("Dallas or Fort Worth"), or a sentence around one ("I was in an accident in Dallas"). Pure; resolve-name.ts adds the
 * hint to its refusal. Only names that matched no place reach it, so a place such as Town and Country, MO is never
 * taken apart.
 */

/** Two or more places joined by a conjunction or a slash: "Dallas or Fort Worth", "Plano and Frisco", "Tampa/St. Pete". */
const JOINED_RE = /^(.+?)\s*(?:\s(?:or|and|&|vs\.?|versus)\s|\/)\s*(.+)$/i;
/** A word a sentence about the person has and a place name does not. */
const SENTENCE_WORD_RE =
  /\b(?:i|i'm|im|i've|we|we're|my|me|was|were|got|get|been|had|have|has|need|want|looking|live|lives|hit|injured|hurt|accident|crash)\b/i;
/** The words after the last "in", "near" or "at" of a sentence: often the place ("... an accident in Dallas"). */
const LAST_PLACE_RE = /^.*\b(?:in|near|at|around|outside)\s+(.+?)[\s.!?]*$/iu;

/** A sentence for a refusal of `text` (no place of that name is known), or '' when its shape says nothing more. */
export function shapeHint(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  const words = t.split(' ').length;
  if (words >= 4 && SENTENCE_WORD_RE.test(t)) {
    const last = LAST_PLACE_RE.exec(t)?.[1]?.trim() ?? '';
    const guess = last === '' || last.split(' ').length > 4 ? '' : ` (perhaps ${JSON.stringify(last)})`;
    return ` It reads as a sentence: send only the place${guess}, as "City, ST" or a ZIP.`;
  }
  const joined = JOINED_RE.exec(t);
  if (joined?.[1] !== undefined && joined[2] !== undefined) {
    return (
      ` It seems to name more than one place (${JSON.stringify(joined[1])} and ${JSON.stringify(joined[2])}), and ` +
      'distances are measured from one point: ask the person which one they are in or nearest to, and send that one.'
    );
  }
  return '';
}
