/** The refusal of a release whose base moved: another release made another version live after this one began. */

/** The live version is not the one this release started from, so its pointer is not written. */
export class LiveMovedError extends Error {
  override name = 'LiveMovedError';
  readonly expected: string | null;
  readonly found: string | null;
  constructor(where: string, expected: string | null, found: string | null) {
    super(
      `${where}: the live version moved from ${expected ?? '(none)'} to ${found ?? '(none)'} while this release ran ` +
        '(another release finished first); nothing was made live: run the release again, so it starts from what is live now',
    );
    this.expected = expected;
    this.found = found;
  }
}
