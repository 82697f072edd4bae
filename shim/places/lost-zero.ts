/**
 * Four digits sent as a ZIP: most often a ZIP of New England or New Jersey whose leading zero a spreadsheet dropped
 * ("02139" -> 2139). The refusal says it read them so and asks the caller to check that with the person.
 */

/** The sentence offering `digits` (four) as a ZIP with its leading zero dropped; `send` is what to send for it. */
export function lostZeroHint(digits: string, send: string): string {
  return (
    `Read as a ZIP whose leading zero was dropped (as spreadsheets do), it is ${digits.padStart(5, '0')}: ` +
    `check with the person, then send ${send}.`
  );
}
