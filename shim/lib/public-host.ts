/**
 * Whether a website's host is somewhere on the public internet. A listing's website becomes a redirect (`/r/<id>`)
 * that a visitor's browser follows, so a host on the visitor's own machine or network (localhost, a loopback, private,
 * link-local or otherwise reserved address, a one-label intranet name, a `.local`/`.internal` name) must never be one:
 * the generator refuses such a row and the shim never redirects there. A DNS name that resolves to a private address
 * cannot be told from its spelling and is not caught here.
 */

/** Names that never leave the local machine or network. */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'localdomain',
  'home.arpa',
];

/** IPv4 ranges that are not public unicast (RFC 6890 and friends): [base address, prefix length]. */
const V4_RESERVED: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function v4(address: string): number | null {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function v4Public(n: number): boolean {
  return V4_RESERVED.every(
    ([base, bits]) => Math.floor(n / 2 ** (32 - bits)) !== Math.floor((v4(base) as number) / 2 ** (32 - bits)),
  );
}

/** The eight 16-bit groups of an IPv6 address as the URL parser prints it (no brackets), or null. */
function v6(address: string): number[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string): number[] | null => {
    if (s === '') return [];
    const out = s.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
    return out.some(Number.isNaN) ? null : out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (head === null || tail === null) return null;
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 2 && fill < 1) || (halves.length === 1 && fill !== 0)) return null;
  return [...head, ...Array<number>(fill).fill(0), ...tail];
}

/** Global unicast (2000::/3) other than documentation (2001:db8::/32) and 6to4 (2002::/16, which wraps an IPv4 address). */
function v6Public(g: readonly number[]): boolean {
  const first = g[0] ?? 0;
  if (first < 0x2000 || first > 0x3fff) return false;
  if (first === 0x2002) return false;
  return !(first === 0x2001 && g[1] === 0x0db8);
}

/**
 * True when `hostname` (as `new URL(...).hostname` gives it: lower case, IPv4 in dotted form, IPv6 in brackets) names
 * a public internet host: a DNS name of two or more labels outside the local-only suffixes, or a public IP address.
 */
export function isPublicWebHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = v6(host.slice(1, -1));
    return groups !== null && v6Public(groups);
  }
  const n = v4(host);
  if (n !== null) return v4Public(n);
  if (/^[\d.]+$/.test(host)) return false;
  const labels = host.split('.');
  if (labels.length < 2 || labels.some((l) => l === '')) return false;
  return !LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
}

/** True when `url` is an http(s) URL whose host is public (isPublicWebHost). */
export function isPublicWebUrl(url: string): boolean {
  const u = URL.parse(url);
  return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && isPublicWebHost(u.hostname);
}
