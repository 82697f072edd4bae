/** Stable, opaque ids: listing ids from place ids, firm ids and firm keys from website domains. */
import { hash } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));

/** The character codes of lowercase RFC 4648 base32 (no padding) of `bytes`, appended to `out`. */
function base32Codes(bytes: Uint8Array, out: number[]): number[] {
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out.push(CODES[(value >>> (bits - 5)) & 31] as number);
      bits -= 5;
    }
  }
  if (bits > 0) out.push(CODES[(value << (5 - bits)) & 31] as number);
  return out;
}

/** Lowercase RFC 4648 base32 (no padding) of `bytes`. */
export function base32(bytes: Uint8Array): string {
  return String.fromCharCode(...base32Codes(bytes, []));
}

// One-shot hash(): a createHash object per id was most of the cost of a million ids. 16 base32 characters are exactly
// the digest's first 10 bytes. The id is made from character codes in one step: appending characters made each id a
// chain of five concatenated-string objects (strings of 13 or more characters are not copied when appended to), which
// at a million listings was ~150 MB of heap until each id was first serialised.
function hashId(prefix: string, input: string): string {
  return String.fromCharCode(
    ...base32Codes(
      hash('sha256', input, 'buffer').subarray(0, 10),
      Array.from(prefix, (c) => c.charCodeAt(0)),
    ),
  );
}

/** `l_` + first 16 base32 characters of sha256("listing:" + place_id): stable across weeks. */
export function listingIdOf(placeId: string): string {
  return hashId('l_', `listing:${placeId}`);
}

/** `f_` + first 16 base32 characters of sha256("firm:" + firm key). */
export function firmIdOf(firmKey: string): string {
  return hashId('f_', `firm:${firmKey}`);
}

/** Website domain: lowercase host without a leading "www.", or null when there is no usable URL. */
export function websiteDomainOf(website: string | null): string | null {
  if (website === null) return null;
  let host: string;
  try {
    host = new URL(website).hostname.toLowerCase();
  } catch {
    return null;
  }
  host = host.replace(/\.$/, '').replace(/^www\./, '');
  return host === '' ? null : host;
}

/**
 * Hosts where unrelated businesses each have a page under one domain (social networks, lawyer directories, site
 * builders' page hosts), with their subdomains: an office linking a page there names no firm of its own.
 */
export const SHARED_HOSTS: readonly string[] = [
  'avvo.com',
  'bbb.org',
  'facebook.com',
  'findlaw.com',
  'g.page',
  'google.com',
  'instagram.com',
  'justia.com',
  'lawyers.com',
  'linkedin.com',
  'linktr.ee',
  'martindale.com',
  'nolo.com',
  'superlawyers.com',
  'tiktok.com',
  'twitter.com',
  'x.com',
  'yellowpages.com',
  'yelp.com',
  'youtube.com',
];

/** Whether a website domain (as websiteDomainOf gives it) is a shared host or one of its subdomains. */
export function isSharedHost(domain: string): boolean {
  return SHARED_HOSTS.some((h) => domain === h || domain.endsWith(`.${h}`));
}

/**
 * The key a firm is grouped by: its website domain, or `place:<place_id>` for an office without a website or with a
 * page on a shared host (grouping those by domain would show only the nearest of many unrelated offices).
 */
export function firmKeyOf(placeId: string, website: string | null): string {
  return firmKeyOfDomain(placeId, websiteDomainOf(website));
}

/** firmKeyOf, for a domain already parsed by websiteDomainOf. */
export function firmKeyOfDomain(placeId: string, domain: string | null): string {
  return domain !== null && !isSharedHost(domain) ? domain : `place:${placeId}`;
}

/** A flags.jsonl `firm` value normalised the same way as firm keys (domains lower-cased, "www." dropped). */
export function normaliseFlagKey(firm: string): string {
  if (firm.startsWith('place:')) return firm;
  return firm
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}
