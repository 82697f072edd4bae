/**
 * What a newcomer meets on a fresh clone, run as they would run it (real CLIs as child processes): an unsupported Node
 * is refused with one line before any TypeScript loads; the benchmark, soak and fuzz tools say they need the
 * development dependencies on a production install; the soak says where a site comes from; HOST=0.0.0.0 without
 * PUBLIC_BASE_URL warns with the fix; a bad PUBLIC_BASE_URL is named; weeks and folders are checked (usage errors 2).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wildcardHostWarning } from '../shim/base-url-warning.ts';
import { ConfigError, loadConfig } from '../shim/edge/env.ts';

const ROOT = resolve('.');
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const rules = createRequire(import.meta.url)('../tools/preflight-rules.cjs') as {
  supported(version: string): boolean;
};
const temp = mkdtempSync(join(tmpdir(), 'iad-newcomer-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Run `node <args>` (this Node unless `node` is given) in `cwd`; status and output. */
function run(args: string[], opts: { cwd?: string; env?: Record<string, string>; node?: string } = {}) {
  const r = spawnSync(opts.node ?? process.execPath, args, {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: 60_000,
  });
  // A frame line of a stack trace (usage texts say "at most", so the API suites' wider pattern does not fit here).
  expect(r.stderr, `stack trace from node ${args.join(' ')}`).not.toMatch(/^\s+at .*:\d+:\d+\)?$|node:internal/m);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A copy of the checkout made of symlinks, without the top-level entries in `leaveOut` and node_modules packages in `without`. */
function linkedTree(name: string, leaveOut: string[], without: Set<string>): string {
  const dir = join(temp, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const entry of readdirSync(ROOT))
    if (entry !== 'node_modules' && !leaveOut.includes(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('@')) {
      mkdirSync(join(dir, 'node_modules', entry));
      for (const sub of readdirSync(join(ROOT, 'node_modules', entry)))
        if (!without.has(`${entry}/${sub}`))
          symlinkSync(join(ROOT, 'node_modules', entry, sub), join(dir, 'node_modules', entry, sub));
    } else if (!without.has(entry)) symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  return dir;
}

describe('an unsupported Node', () => {
  it('the rule: 22.18+ or 24 and later', () => {
    expect(['20.20.2', '22.17.1', '23.11.0'].map(rules.supported)).toEqual([false, false, false]);
    expect(['22.18.0', '22.20.1', '24.0.0', '24.11.1'].map(rules.supported)).toEqual([true, true, true, true]);
    expect(rules.supported(process.versions.node)).toBe(true);
  });

  it('every npm script that runs a .ts file preloads the check, which runs before the TypeScript loads', () => {
    const ts = Object.entries(pkg.scripts).filter(([, cmd]) => /\.ts\b/.test(cmd));
    expect(ts.length).toBeGreaterThan(10);
    for (const [name, cmd] of ts)
      // Node's own flags (generate and release size the young generation) may come before the preload.
      expect(cmd, name).toMatch(/^(exec )?node (--[a-z-]+=\S+ )*--require \.\/tools\/preflight\.cjs \S+\.ts$/);
    expect(pkg.scripts.test).toMatch(/^node tools\/preflight\.cjs && /);
  });

  it('generate and release start Node with the same flags (release runs generate in its process)', () => {
    const flags = (script: string): string[] =>
      (pkg.scripts[script] ?? '').split(' ').filter((w) => /^--[a-z-]+=\S+$/.test(w));
    // Sized for the week's peak heap (generator/README.md): a release that dropped them would run the same generate
    // with another young generation, slower or out of memory where generate alone was fine.
    expect(flags('generate')).toContain('--max-semi-space-size=64');
    expect(flags('release')).toEqual(flags('generate'));
  });

  it("the machine's own Node (20 here) gets one line naming the versions, exit 1, no stack trace", () => {
    const old = '/usr/bin/node';
    const version = existsSync(old)
      ? execFileSync(old, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
      : '';
    expect(version, 'this test needs an older Node at /usr/bin/node').not.toBe('');
    // The start script's own command line, as npm would run it, with that Node first on PATH.
    const r = spawnSync('sh', ['-c', `${pkg.scripts.start} --help`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `/usr/bin:${process.env.PATH ?? ''}` },
    });
    if (rules.supported(version)) expect(r.status).toBe(0);
    else {
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toBe(
        `This project needs Node.js 22.18 or later 22.x, or 24 (it runs its TypeScript sources directly); this is Node.js ${version}. Install Node 24 (or 22.18+) and run the command again.`,
      );
      expect(r.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    }
  });
});

describe('a production install (npm ci --omit=dev)', () => {
  it('bench, soak and fuzz --help say they need the development dependencies instead of ERR_MODULE_NOT_FOUND', () => {
    const tree = linkedTree('prod', [], new Set(Object.keys(pkg.devDependencies)));
    for (const script of ['bench', 'soak', 'fuzz']) {
      const file = /(\S+\.ts)$/.exec(pkg.scripts[script] ?? '')?.[1] as string;
      const r = run(['--require', './tools/preflight.cjs', file, '--help'], { cwd: tree });
      expect(r.status, script).toBe(1);
      expect(r.stderr, script).toContain(`${file} needs the development dependencies`);
      expect(r.stderr, script).toContain('npm ci (without --omit=dev)');
      expect(r.stderr, script).not.toContain('ERR_MODULE_NOT_FOUND');
    }
    // The server itself runs there.
    expect(run(['--require', './tools/preflight.cjs', 'start.ts', '--help'], { cwd: tree }).status).toBe(0);
  });
});

describe('npm run soak on a fresh clone', () => {
  it('with no released site says how to make one (exit 2); with --site it names the folder', () => {
    const tree = linkedTree('fresh', ['var', 'site'], new Set());
    const r = run(['--require', './tools/preflight.cjs', 'bench/soak/soak.ts', '--seconds', '1'], { cwd: tree });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no published site (current.json) at site/ or var/test-site/');
    expect(r.stderr).toContain('Run npm start once (it releases the sample into site/)');
    const given = run(['bench/soak/soak.ts', '--site', join(temp, 'nowhere')]);
    expect(given.status).toBe(2);
    expect(given.stderr).toContain(`at ${join(temp, 'nowhere')}`);
    expect(run(['bench/soak/soak.ts', '--help']).stdout).toContain('npm start releases the sample into');
  });
});

describe('the server environment', () => {
  it('HOST=0.0.0.0 without PUBLIC_BASE_URL warns with the fix; with it, or on loopback, nothing is said', async () => {
    expect(wildcardHostWarning('127.0.0.1', null, 'http://127.0.0.1:8787')).toBeNull();
    expect(wildcardHostWarning('0.0.0.0', 'https://api.example.org', 'http://0.0.0.0:8787')).toBeNull();
    expect(wildcardHostWarning('::', null, 'http://[::]:8787')).toContain('PUBLIC_BASE_URL=http://');
    const child = spawn(process.execPath, ['start.ts', '--no-build'], {
      env: {
        ...process.env,
        HOST: '0.0.0.0',
        PORT: '0',
        SITE_DIR: process.env.TEST_SITE_DIR as string,
        LOG_DIR: join(temp, 'log'),
        PUBLIC_BASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((done, fail) => {
      const timer = setInterval(() => {
        if (out.includes('Serving')) {
          clearInterval(timer);
          done();
        }
      }, 50);
      child.once('exit', (code) => fail(new Error(`exited ${code}: ${err}`)));
    });
    child.kill('SIGTERM');
    const port = /http:\/\/0\.0\.0\.0:(\d+)/.exec(out)?.[1] as string;
    expect(err).toContain(
      `Warning: HOST=0.0.0.0 without PUBLIC_BASE_URL: website links, problem types and the OpenAPI server will say http://0.0.0.0:${port}`,
    );
    expect(err).toContain(
      `Set PUBLIC_BASE_URL to the address clients use, e.g. PUBLIC_BASE_URL=http://<this host's name or address>:${port}`,
    );
  });

  it('a bad PUBLIC_BASE_URL is named with what is accepted (exit 1, no bare "Invalid URL")', () => {
    const r = run(['start.ts', '--no-build'], {
      env: { PUBLIC_BASE_URL: 'foo', SITE_DIR: process.env.TEST_SITE_DIR as string },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'Invalid environment:\n  PUBLIC_BASE_URL="foo": must be an absolute http(s) URL, e.g. https://api.example.org\n',
    );
  });
});

describe('every environment error names its variable and what it accepts', () => {
  it('numbers and URLs', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ PORT: 'abc' }, '  PORT="abc": must be a number'],
      [{ STORE_TIMEOUT_MS: 'x' }, '  STORE_TIMEOUT_MS="x": must be a number'],
      [{ SITE_S3_ENDPOINT: 'foo' }, '  SITE_S3_ENDPOINT="foo": must be an http(s) URL, e.g. http://127.0.0.1:4568'],
      [
        { PUBLIC_BASE_URL: 'foo' },
        '  PUBLIC_BASE_URL="foo": must be an absolute http(s) URL, e.g. https://api.example.org',
      ],
    ];
    for (const [env, line] of cases) {
      let message = '';
      try {
        loadConfig({ SITE_DIR: 'site', ...env });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message.split('\n')).toEqual(['Invalid environment:', line]);
    }
  });
});

describe('weeks and folders are checked (usage errors exit 2)', () => {
  it('synth --weeks, research --week and generate --week refuse what is not an ISO week; research --log a missing folder', () => {
    const cases: Array<[string[], string]> = [
      [
        ['data/synth/cli.ts', '--weeks', '2026-W99', '--out', join(temp, 'w')],
        '--weeks must be an ISO week YYYY-Www, e.g. 2026-W47, got "2026-W99": 2026 has ISO weeks W01 to W53',
      ],
      [
        ['generator/research/cli.ts', '--week', '2026-W99'],
        '--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "2026-W99"',
      ],
      [
        ['generator/research/cli.ts', '--week', '2026-W47', '--log', '/nonexistent', '--out', join(temp, 'r')],
        '--log /nonexistent does not exist',
      ],
      [
        ['generator/cli.ts', '--week', 'nope', '--out', join(temp, 'g')],
        '--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "nope"',
      ],
      [
        ['generator/cli.ts', '--week', '2025-W53', '--out', join(temp, 'g')],
        '--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "2025-W53": 2025 has ISO weeks W01 to W52',
      ],
    ];
    cases.push([
      ['data/collect/cli.ts', '--week', '2025-W53'],
      '--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "2025-W53": 2025 has ISO weeks W01 to W52',
    ]);
    for (const [args, message] of cases) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
    }
    expect(existsSync(join(temp, 'w'))).toBe(false);
    expect(existsSync(join(temp, 'g'))).toBe(false);
  });
});
