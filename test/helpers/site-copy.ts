/** Cheap writable copies of the generated test site: symlinks to the original, real files only where a test changes something. */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** A linked copy of a site. */
export interface SiteCopy {
  dir: string;
  version: string;
  /** Absolute path of `rel` (relative to v/<version>/) in the copy, made a real directory (of links) or real file first. */
  own(rel: string): string;
  /** Absolute path of directory `rel`, replaced by an empty real directory (a test then adds only what it needs). */
  empty(rel: string): string;
  remove(): void;
}

/** Link every entry of `src/v/<version>` into a fresh temp folder; current.json is a real copy. */
export function linkSite(src: string): SiteCopy {
  const pointerText = readFileSync(join(src, 'current.json'), 'utf8');
  const version = (JSON.parse(pointerText) as { version: string }).version;
  const dir = mkdtempSync(join(tmpdir(), 'iad-site-'));
  writeFileSync(join(dir, 'current.json'), pointerText);
  const srcRoot = join(src, 'v', version);
  const root = join(dir, 'v', version);
  mkdirSync(root, { recursive: true });
  for (const name of readdirSync(srcRoot)) symlinkSync(join(srcRoot, name), join(root, name));

  const own = (rel: string): string => {
    const parts = rel.split('/').filter((p) => p !== '');
    let here = root;
    for (let i = 0; i < parts.length; i++) {
      const path = join(here, parts[i] as string);
      const source = join(srcRoot, relative(root, path));
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        stat = null;
      }
      if (stat?.isSymbolicLink()) {
        unlinkSync(path);
        if (lstatSync(source).isDirectory()) {
          mkdirSync(path);
          for (const child of readdirSync(source)) symlinkSync(join(source, child), join(path, child));
        } else {
          writeFileSync(path, readFileSync(source));
        }
      }
      here = path;
    }
    return here;
  };

  const empty = (rel: string): string => {
    const path = join(root, rel);
    const parent = rel.includes('/') ? own(rel.slice(0, rel.lastIndexOf('/'))) : root;
    rmSync(join(parent, rel.slice(rel.lastIndexOf('/') + 1)), { recursive: true, force: true });
    mkdirSync(path);
    return path;
  };

  return { dir, version, own, empty, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
