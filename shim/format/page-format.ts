/**
 * Pages for people, as published in each site version: one JSON object per served path, holding the body and its
 * media type, so pages change atomically with the week's data and are read through the same versioned reader.
 */
import { z } from 'zod';
import { SCHEMA_VERSIONS } from '../contract/constants.ts';
import { inVersion, paths } from './paths.ts';

/** `v/<version>/pages/<name>.json`: one page or asset and the media type it is served with. */
export const PageDoc = z.object({
  schema_version: z.literal(SCHEMA_VERSIONS.pages),
  generated: z.literal('by generator/; do not edit'),
  path: z.string().describe('The public path it is served at, e.g. /metros/chicago'),
  content_type: z.string(),
  body: z.string(),
});
export type PageDocT = z.infer<typeof PageDoc>;

/** Page names are path-like: lowercase letters, digits, dots, dashes and single slashes. */
export const PAGE_NAME_RE = /^[a-z0-9][a-z0-9.-]*(\/[a-z0-9][a-z0-9.-]*)*$/;

/** Store key of a page by name, e.g. pageKey(v, 'metros/chicago'). */
export function pageKey(version: string, name: string): string {
  return inVersion(paths.page)(version, name);
}

/**
 * The page name for a public path, or null when the path is not a page: `/` -> index, `/docs` -> docs,
 * `/corrections` -> corrections, `/metros/{slug}` -> metros/{slug}, `/assets/{file}` -> assets/{file}.
 */
export function pageNameOf(pathname: string): string | null {
  if (pathname === '/') return 'index';
  if (pathname === '/docs' || pathname === '/corrections') return pathname.slice(1);
  const m = /^\/(metros|assets)\/([a-z0-9][a-z0-9.-]{0,80})$/.exec(pathname);
  if (m === null) return null;
  const name = `${m[1]}/${m[2]}`;
  return PAGE_NAME_RE.test(name) ? name : null;
}
