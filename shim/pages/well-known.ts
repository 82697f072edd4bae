/** The plain-text files at fixed paths that crawlers and security researchers look for: /robots.txt and /.well-known/security.txt. */
import { SERVICE_NAME } from '../contract/constants.ts';
import { DEFAULT_CORRECTIONS_EMAIL } from '../answer/openapi-info.ts';

/** Days until a served security.txt expires (RFC 9116 advises less than a year). */
export const SECURITY_TXT_DAYS = 180;

/**
 * robots.txt: everything may be read, the API included (assistants fetch /v1/ for the people they help), except the
 * /r/ redirects, which count a person's click through to a firm's site and would be skewed by crawlers.
 */
export function robotsTxt(): string {
  return [
    `# ${SERVICE_NAME}: a read-only directory API; see /openapi.json (REST) and /mcp (MCP).`,
    'User-agent: *',
    'Disallow: /r/',
    'Allow: /',
    '',
  ].join('\n');
}

/** security.txt (RFC 9116) for the service at `publicBaseUrl`, expiring SECURITY_TXT_DAYS after `now`'s UTC day. */
export function securityTxt(publicBaseUrl: string, correctionsEmail: string | null, now: Date): string {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const expires = new Date(day + SECURITY_TXT_DAYS * 86_400_000).toISOString().replace(/\.000Z$/, 'Z');
  return [
    `Contact: mailto:${correctionsEmail ?? DEFAULT_CORRECTIONS_EMAIL}`,
    `Expires: ${expires}`,
    'Preferred-Languages: en',
    `Canonical: ${publicBaseUrl}/.well-known/security.txt`,
    `Policy: ${publicBaseUrl}/terms`,
    '',
  ].join('\n');
}
