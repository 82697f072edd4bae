/** The caller's network address, and the key it is rate-limited under. */
import { isIP } from 'node:net';

/** Strip an IPv4-mapped IPv6 prefix so one client has one address form. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * The client address: the socket's peer, or the left-most X-Forwarded-For entry when the server sits behind a trusted
 * proxy (TRUST_PROXY=true) and that entry is an IP address.
 */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | null, trustProxy: boolean): string {
  if (trustProxy && forwardedFor !== null) {
    const first = forwardedFor.split(',')[0]?.trim() ?? '';
    // Forms like "[2001:db8::1]:443" or "203.0.113.7:8080" carry a port some proxies add.
    const bare = first.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
    if (isIP(bare) !== 0) return normaliseAddress(bare);
  }
  return normaliseAddress(socketAddress ?? 'unknown');
}

function expandIPv6(address: string): string[] | null {
  const [head = '', tail, extra] = address.split('::');
  if (extra !== undefined) return null;
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right];
}

/** Rate-limit key: an IPv4 address as is, an IPv6 address by its /64 (one host usually holds a whole /64). */
export function rateLimitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIPv6(address.split('%')[0] ?? address);
  if (groups === null || groups.length < 4) return address;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
