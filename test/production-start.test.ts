/**
 * A production start: `npm ci --omit=dev && npm start` serves with the runtime dependencies alone (Node strips the
 * types; no tsx), the server is npm's own child so a supervisor's SIGTERM to `npm start` reaches it, it stops
 * gracefully with the request log flushed, and settings can come from a `.env` file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
const temps: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'prod-start-'));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The package name of a bare specifier ('@aws-sdk/client-s3/x' -> '@aws-sdk/client-s3'), or null for a relative or node: one. */
function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec))
    return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

/** The files reachable from `entry` and every package they import (static, dynamic and require.resolve; type-only excluded). */
function reachedFrom(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const todo = [resolve(entry)];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const specs = [
      ...[...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)].map((m) => m[1]),
      ...[...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
      ...[...source.matchAll(/\b(?:require|resolve)\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
    ] as string[];
    for (const spec of specs) {
      const name = packageOf(spec);
      if (name !== null) {
        if (!packages.has(name)) packages.set(name, file);
      } else if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (/\.(ts|js|mjs)$/.test(target) && existsSync(target)) todo.push(target);
      }
    }
  }
  return { files: seen, packages };
}

/** Resolves with the server's base URL once it prints it; rejects when the process ends first. */
function servingUrl(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((done, fail) => {
    const check = (): void => {
      const url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
      if (url !== undefined) done(url);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => fail(new Error(`exited with ${code} before serving:\n${output()}`)));
  });
}

describe('npm start in production', () => {
  it('runs the server with node itself, and everything it can load is a runtime dependency (npm ci --omit=dev)', () => {
    // The preload is plain CommonJS with no package: it checks the Node version before any TypeScript loads.
    expect(pkg.scripts.start).toBe('exec node --require ./tools/preflight.cjs start.ts');
    const { files, packages } = reachedFrom('start.ts');
    // The start path synthesises and generates a site when none exists: those modules are reached too.
    expect(files).toContain(resolve('generator/generate.ts'));
    expect(files).toContain(resolve('data/synth/synthesize.ts'));
    expect(packages.size).toBeGreaterThan(5);
    const notRuntime = [...packages]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, file]) => `${name} (${file})`);
    expect(notRuntime).toEqual([]);
  });

  it('stops gracefully on a SIGTERM sent to the npm process, with the request log written', async () => {
    const logDir = tempDir();
    const child = spawn('npm', ['start', '--', '--no-build'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SITE_DIR: process.env.TEST_SITE_DIR as string,
        LOG_DIR: logDir,
        RATE_LIMIT_PER_HOUR: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const base = await servingUrl(child, () => out + err);
    const answer = await fetch(`${base}/v1/attorneys?zip=60601&limit=1`, {
      headers: { 'user-agent': 'production-start-test' },
    });
    expect(answer.status).toBe(200);
    await answer.arrayBuffer();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(err).toContain('SIGTERM: finishing open requests and shutting down');
    // No server left behind: the port no longer answers.
    await expect(fetch(`${base}/v1/coverage`)).rejects.toThrow();
    const logged = readdirSync(logDir).flatMap((f) => readFileSync(join(logDir, f), 'utf8').trim().split('\n'));
    expect(logged.map((line) => (JSON.parse(line) as { user_agent?: string }).user_agent)).toEqual([
      'production-start-test',
    ]);
  }, 60_000);

  it('reads settings from .env in the working directory; a variable already set in the environment wins', async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, '.env'),
      [
        '# settings of this test',
        'PORT=1',
        'HOST=127.0.0.1',
        `SITE_DIR=${process.env.TEST_SITE_DIR as string}`,
        'CORRECTIONS_EMAIL=from-env-file@example.org',
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [resolve('start.ts'), '--no-build'], {
      cwd,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      const base = await servingUrl(child, () => out);
      expect(base).not.toMatch(/:1$/);
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { info: { contact: { email: string } } };
      expect(doc.info.contact.email).toBe('from-env-file@example.org');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
