/** The CloudFront paths a publish invalidates: those whose answer may change when the pointer moves. */
import { keys, type ManifestT } from '../../shim/format/site-format.ts';
import { joinManifests } from '../site/manifest-join.ts';

/** Above this many changed firm packs, invalidate /v1/firms/* and /r/* instead of each pack's paths. */
export const MAX_PACK_INVALIDATIONS = 100;

/**
 * CloudFront paths whose answer may change when the pointer moves from `previous` to `next`: the pointer, the searches
 * and /v1/coverage (they name the version), /openapi.json and `/`, the API documents built from changed objects, and the listings of each changed firm pack (or wildcards when there are many).
 */
export function invalidationPathsFor(
  previous: ManifestT | null,
  previousVersion: string | null,
  next: ManifestT,
  version: string,
): string[] {
  if (!previous || !previousVersion) return ['/*'];
  const changed = new Set<string>();
  // One ordered walk of both manifests (no lookup by a built key: see manifest-join.ts).
  joinManifests(
    previous.objects,
    keys.root(previousVersion),
    next.objects,
    keys.root(version),
    (rel, before, after) => {
      if (before?.sha256 !== after?.sha256) changed.add(rel);
    },
  );
  // Every answer names its version (query_id, Directory-Version): a new pointer makes every cached search answer stale,
  // and /v1/coverage too (its body names the version), even when no count changed (a one-phone correction). The API
  // description (its examples are the served version's) and the index go too: two paths, so no cache can keep them.
  const paths = [`/${keys.pointer}`, '/v1/attorneys*', '/v1/coverage', '/openapi.json', '/'];
  if (changed.has('changes.json')) paths.push('/v1/changes');
  // A changed firm pack `firms/<prefix>.json` holds the documents of every listing id starting `l_<prefix>`
  // (firmPackPrefix), and the manifest says no more than which pack changed: one wildcard per pack, which also takes
  // the copies cached with a point (`?lat=&lng=` is in the firm route's cache key).
  const packs = [...changed]
    .map((rel) => /^firms\/([^/]+)\.json$/.exec(rel)?.[1])
    .filter((prefix): prefix is string => prefix !== undefined)
    .sort();
  if (packs.length > MAX_PACK_INVALIDATIONS) paths.push('/v1/firms/*', '/r/*');
  else for (const prefix of packs) paths.push(`/v1/firms/l_${prefix}*`, `/r/l_${prefix}*`);
  // Pages for people and problem pages are cached at CloudFront like documents; a week's metro figures change them all,
  // so one wildcard per folder.
  const changedUnder = (prefix: string): string[] =>
    [...changed].filter((rel) => rel.startsWith(prefix)).map((rel) => rel.slice(prefix.length));
  const pages = changedUnder('pages/');
  for (const name of ['docs.json', 'corrections.json'])
    if (pages.includes(name)) paths.push(`/${name.slice(0, -'.json'.length)}`);
  for (const folder of ['metros', 'assets'])
    if (pages.some((name) => name.startsWith(`${folder}/`))) paths.push(`/${folder}/*`);
  if (changedUnder('problems/').length > 0) paths.push('/problems/*');
  return paths;
}
