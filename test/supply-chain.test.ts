/**
 * Supply chain: every installed package is pinned by the lockfile with a sha512 integrity hash from the npm registry,
 * and every package that has an install script has been reviewed in package.json's allowScripts (a new dependency with
 * an install script fails here until someone decides whether it may run). The project's .npmrc turns install scripts
 * off for every npm: npm before 11.16 (the npm of Node 22) ignores allowScripts, and @scarf/scarf (via swagger-ui-dist)
 * has a postinstall that reports the install to its host.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  hasInstallScript?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
const installed = Object.entries(lock.packages).filter(([path, e]) => path !== '' && e.link !== true);
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('the lockfile', () => {
  it('pins every package with a sha512 integrity hash (bundled ones are covered by their parent tarball)', () => {
    expect(lock.lockfileVersion).toBe(3);
    const unpinned = installed
      .filter(([, e]) => e.inBundle !== true && !(e.integrity ?? '').startsWith('sha512-'))
      .map(([path]) => path);
    expect(unpinned).toEqual([]);
  });

  it('takes nothing from git, a URL or a local path: only registry versions', () => {
    const foreign = installed
      .filter(
        ([, e]) =>
          (e.resolved !== undefined && !e.resolved.startsWith('https://registry.npmjs.org/')) ||
          !/^\d+\.\d+\.\d+/.test(e.version ?? ''),
      )
      .map(([path, e]) => `${path} ${e.resolved ?? e.version ?? ''}`);
    expect(foreign).toEqual([]);
  });
});

describe('install scripts', () => {
  it('every package with an install script is reviewed in allowScripts (true: may run, false: never runs)', () => {
    const withScripts = [
      ...new Set(installed.filter(([, e]) => e.hasInstallScript === true).map(([path]) => nameOf(path))),
    ].sort();
    const reviewed = new Set(Object.keys(pkg.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1')));
    expect(withScripts.filter((name) => !reviewed.has(name))).toEqual([]);
  });

  it('none runs on npm install: the project .npmrc sets ignore-scripts, which every npm honours', () => {
    const npmrc = readFileSync('.npmrc', 'utf8');
    expect(npmrc.split('\n').map((line) => line.trim())).toContain('ignore-scripts=true');
    expect(execFileSync('npm', ['config', 'get', 'ignore-scripts'], { encoding: 'utf8' }).trim()).toBe('true');
  });

  it('a package with a postinstall, installed offline from a tarball, leaves no trace with the project .npmrc (and does without it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'install-script-'));
    try {
      // A stand-in for @scarf/scarf: its postinstall writes a marker file instead of calling home.
      const source = join(dir, 'source');
      mkdirSync(source);
      const marker = join(dir, 'postinstall-ran');
      writeFileSync(
        join(source, 'package.json'),
        JSON.stringify({ name: 'reports-installs', version: '1.0.0', scripts: { postinstall: 'node report.cjs' } }),
      );
      writeFileSync(
        join(source, 'report.cjs'),
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
      );
      execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: source, stdio: 'ignore' });
      const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')) as string);
      const install = (project: string, withNpmrc: boolean): void => {
        mkdirSync(project);
        writeFileSync(
          join(project, 'package.json'),
          JSON.stringify({ name: project.split('/').pop(), version: '1.0.0', private: true }),
        );
        if (withNpmrc) copyFileSync('.npmrc', join(project, '.npmrc'));
        execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
          cwd: project,
          stdio: 'ignore',
          env: { ...process.env, npm_config_ignore_scripts: undefined },
        });
      };
      install(join(dir, 'with-project-npmrc'), true);
      expect(existsSync(join(dir, 'with-project-npmrc', 'node_modules', 'reports-installs', 'package.json'))).toBe(
        true,
      );
      expect(existsSync(marker)).toBe(false);
      install(join(dir, 'without'), false);
      expect(existsSync(marker)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
