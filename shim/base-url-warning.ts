/** The warning `npm start` prints when its links would name an address no client can open. Pure. */

/** Addresses that mean "every interface": fine to bind, but not an address a client can open. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

/**
 * The warning for a server bound to a wildcard HOST without PUBLIC_BASE_URL (its links, problem types and OpenAPI
 * server would be `base`, e.g. http://0.0.0.0:8787), naming the fix; null when there is nothing to say.
 */
export function wildcardHostWarning(host: string, publicBaseUrl: string | null, base: string): string | null {
  if (publicBaseUrl !== null || !WILDCARD.has(host.trim())) return null;
  const port = new URL(base).port;
  return (
    `Warning: HOST=${host} without PUBLIC_BASE_URL: website links, problem types and the OpenAPI server will say ${base}, ` +
    `which no client can open. Set PUBLIC_BASE_URL to the address clients use, e.g. PUBLIC_BASE_URL=http://<this host's name or address>:${port}`
  );
}
