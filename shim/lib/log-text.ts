/**
 * Text that reaches the request log: caller-sent strings (location, src, user agent) with every character that could
 * break a line or reorder what a reader sees replaced by U+FFFD, so a log line reads as what was sent and nothing more.
 */

/**
 * C0 and C1 controls and DEL; U+2028/U+2029 (line and paragraph separators, line breaks to many viewers); the bidi
 * controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069); zero-width and invisible formatting characters (U+200B-D,
 * U+2060-U+2064, U+FEFF); the interlinear annotation controls (U+FFF9-U+FFFB); and unpaired surrogates.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Any character outside printable ASCII: every UNSAFE character is one, and most log text has none (a cheap scan). */
const NOT_PRINTABLE_ASCII = /[^\u0020-\u007e]/;

/** `text` with every unsafe character (see UNSAFE) replaced by U+FFFD. */
export function logSafe(text: string): string {
  return NOT_PRINTABLE_ASCII.test(text) ? text.replace(UNSAFE, '\ufffd') : text;
}
