/**
 * Two versions' manifests walked side by side by key relative to each version's root, in key order. A version of a
 * million offices lists a million objects: looking each one up in the other manifest builds and hashes a million new
 * key strings (seconds, and as much again in garbage collection), while a merge of the two key lists, which the
 * generator already writes in order, only compares neighbours.
 */
import type { ManifestT } from '../../shim/format/site-format.ts';

type Entry = ManifestT['objects'][string];

const ordered = new WeakMap<object, string[]>();

/**
 * The keys of a manifest's `objects` in code-unit order (as the generator writes them; sorted here only when they are
 * not), computed once per object: listing a million keys of a dictionary-mode object takes about a second each time.
 * The caller must not change `objects` afterwards (manifests are read, never edited).
 */
export function manifestKeys(objects: ManifestT['objects']): readonly string[] {
  const known = ordered.get(objects);
  if (known !== undefined) return known;
  const out = Object.keys(objects);
  for (let i = 1; i < out.length; i++) {
    if ((out[i - 1] as string) >= (out[i] as string)) {
      out.sort();
      break;
    }
  }
  ordered.set(objects, out);
  return out;
}

/**
 * Call `visit` once per relative key present in either manifest, in order, with the entry of each side (undefined
 * when that side lacks it) and the full key of the `b` side (or of `a` when `b` lacks it).
 */
export function joinManifests(
  a: ManifestT['objects'],
  aRoot: string,
  b: ManifestT['objects'],
  bRoot: string,
  visit: (rel: string, inA: Entry | undefined, inB: Entry | undefined, key: string) => void,
): void {
  const ak = manifestKeys(a);
  const bk = manifestKeys(b);
  let i = 0;
  let j = 0;
  while (i < ak.length || j < bk.length) {
    const ka = ak[i];
    const kb = bk[j];
    const ra = ka === undefined ? undefined : ka.slice(aRoot.length);
    const rb = kb === undefined ? undefined : kb.slice(bRoot.length);
    if (rb === undefined || (ra !== undefined && ra < rb)) {
      visit(ra as string, a[ka as string], undefined, ka as string);
      i++;
    } else if (ra === undefined || rb < ra) {
      visit(rb, undefined, b[kb as string], kb as string);
      j++;
    } else {
      visit(ra, a[ka as string], b[kb as string], kb as string);
      i++;
      j++;
    }
  }
}
