/** The caller's network address, and the key it is rate-limited under. */
import { isIP } from 'node:net';

/** Strip an IPv4-mapped IPv6 prefix so one client has one address form. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * The client address. With `proxyHops` 0 it is the socket's peer. Behind `proxyHops` trusted proxies it is the
 * X-Forwarded-For entry that many places from the right: each proxy appends the address it saw, so entries further
 * left were written by the client and prove nothing. When that entry is missing or not an IP address, the socket peer.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  proxyHops: number,
): string {
  if (proxyHops > 0 && forwardedFor !== null) {
    const entries = forwardedFor.split(',').map((e) => e.trim());
    const entry = entries.length >= proxyHops ? (entries[entries.length - proxyHops] ?? '') : '';
    // Forms like "[2001:db8::1]:443" or "203.0.113.7:8080" carry a port some proxies add.
    const bare = entry.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
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
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
