/**
 * Supply chain: every installed package is pinned by the lockfile with a sha512 integrity hash from the npm registry,
 * and every package that has an install script has been reviewed in package.json's allowScripts (a new dependency with
 * an install script fails here until someone decides whether it may run).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  hasInstallScript?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
const installed = Object.entries(lock.packages).filter(([path, e]) => path !== '' && e.link !== true);
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('the lockfile', () => {
  it('pins every package with a sha512 integrity hash (bundled ones are covered by their parent tarball)', () => {
    expect(lock.lockfileVersion).toBe(3);
    const unpinned = installed.filter(([, e]) => e.inBundle !== true && !(e.integrity ?? '').startsWith('sha512-')).map(([path]) => path);
    expect(unpinned).toEqual([]);
  });

  it('takes nothing from git, a URL or a local path: only registry versions', () => {
    const foreign = installed
      .filter(([, e]) => (e.resolved !== undefined && !e.resolved.startsWith('https://registry.npmjs.org/')) || !/^\d+\.\d+\.\d+/.test(e.version ?? ''))
      .map(([path, e]) => `${path} ${e.resolved ?? e.version ?? ''}`);
    expect(foreign).toEqual([]);
  });
});

describe('install scripts', () => {
  it('every package with an install script is reviewed in allowScripts (true: may run, false: never runs)', () => {
    const withScripts = [...new Set(installed.filter(([, e]) => e.hasInstallScript === true).map(([path]) => nameOf(path)))].sort();
    const reviewed = new Set(Object.keys(pkg.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1')));
    expect(withScripts.filter((name) => !reviewed.has(name))).toEqual([]);
  });
});
