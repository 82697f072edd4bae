/** A request target split into the path and query the app reads, with the URL parser's normalising where it matters. */

/** A target that needs no normalising: origin-form, plain characters, no fragment, apostrophe or dot segment. */
const PLAIN_TARGET = /^\/[!$%&(-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/**
 * The path (not percent-decoded) and query (without "?") of an origin-form target, as the WHATWG URL parser gives
 * them (dot segments resolved, unsafe characters percent-encoded, the fragment dropped); null when it is not a path.
 * A plain target, nearly every request, is split without parsing a URL.
 */
export function splitTarget(target: string): { path: string; query: string } | null {
  if (PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)) {
    const q = target.indexOf('?');
    return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
  }
  if (!target.startsWith('/')) return null;
  let url: URL;
  try {
    // Concatenated, never resolved against a base: a target like //other.example stays a path.
    url = new URL(`http://localhost${target}`);
  } catch {
    return null;
  }
  return { path: url.pathname, query: url.search.slice(1) };
}
