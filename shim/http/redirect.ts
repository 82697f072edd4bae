/** The outbound link of GET /r/{listing_id}: the firm's own site with utm_source set. */

function paramName(piece: string): string {
  const name = piece.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * `target` with `utm_source=<source>`: an existing utm_source is replaced, every other query parameter kept byte for byte.
 * Null when the target is not an absolute http(s) URL without credentials (such a link is never followed).
 */
export function withUtmSource(target: string, source: string): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') return null;
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((piece) => piece !== '' && paramName(piece) !== 'utm_source');
  kept.push(`utm_source=${encodeURIComponent(source)}`);
  url.search = `?${kept.join('&')}`;
  return url.href;
}
