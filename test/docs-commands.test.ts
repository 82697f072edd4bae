/**
 * What README.md, CONTRIBUTING.md, data/README.md and docs/*.md tell a reader to type exists: every `npm run <script>` is a script of package.json,
 * every flag given to a script (`npm run x -- --flag`, `npm start -- --flag`) is one its --help lists, and every route
 * they name (`/v1/...`, `GET /r/{listing_id}`, the pages, curl URLs on the local server) answers on a running server.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  join('data', 'README.md'),
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const text = new Map(DOCS.map((file) => [file, readFileSync(file, 'utf8')]));
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

interface Command {
  file: string;
  script: string;
  /** The words after `--`, up to the end of the code span, line, comment or shell separator. */
  args: string[];
  /** Flags written straight after the script name, which npm would take as its own settings. */
  withoutSeparator: string[];
}

/** Every `npm start`, `npm test` and `npm run <script>` in the docs, with what follows it. */
function commands(): Command[] {
  const found: Command[] = [];
  for (const [file, body] of text) {
    for (const m of body.matchAll(/\bnpm (start|test|run ([\w:-]+))((?:[ \t]+[^`\n;|#&)]*)?)/g)) {
      const script = m[2] ?? (m[1] as string);
      const rest = (m[3] ?? '').trim().split(/\s+/).filter(Boolean);
      const sep = rest.indexOf('--');
      const before = sep < 0 ? rest : rest.slice(0, sep);
      found.push({
        file,
        script,
        args: sep < 0 ? [] : rest.slice(sep + 1),
        withoutSeparator: before.filter((w) => w.startsWith('--')),
      });
    }
  }
  return found;
}

/** `--help` of a script (and of its subcommand, for `npm run audit -- verify ...`), run as npm would run it. */
const helps = new Map<string, string>();
function helpOf(script: string, sub: string | null): string {
  const key = `${script} ${sub ?? ''}`;
  const known = helps.get(key);
  if (known !== undefined) return known;
  const file = /^(?:exec )?node (?:--[a-z-]+=\S+ )*(?:--require \S+ )?(\S+\.ts)$/.exec(scripts[script] ?? '')?.[1];
  if (file === undefined) throw new Error(`npm run ${script} is not a node script: its flags cannot be checked`);
  const r = spawnSync(process.execPath, [file, ...(sub === null ? [] : [sub]), '--help'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const help = `${r.stdout}${r.stderr}`;
  helps.set(key, help);
  return help;
}

const ROUTE_PREFIXES_NOT_SERVED = [
  // Filesystem paths and CloudWatch log group names, not URLs.
  '/usr/',
  '/aws/',
];

/** Routes: absolute paths in code spans (optionally after GET/POST), and the paths of curl URLs on the local server. */
function routes(): { file: string; method: string; explicit: boolean; path: string }[] {
  const out: { file: string; method: string; explicit: boolean; path: string }[] = [];
  for (const [file, body] of text) {
    for (const m of body.matchAll(/`(?:(GET|POST) )?(\/[^`\s]*)`/g))
      out.push({ file, method: m[1] ?? 'GET', explicit: m[1] !== undefined, path: m[2] as string });
    for (const m of body.matchAll(/http:\/\/127\.0\.0\.1:8787(\/[^\s'"`)<>]*)/g))
      out.push({ file, method: 'GET', explicit: true, path: m[1] as string });
  }
  return out.filter((r) => !r.path.includes('*') && !ROUTE_PREFIXES_NOT_SERVED.some((p) => r.path.startsWith(p)));
}

describe('commands in README.md and docs/*.md', () => {
  const all = commands();

  it('name scripts that package.json has', () => {
    expect(all.length).toBeGreaterThan(20);
    const missing = all.filter((c) => !(c.script in scripts)).map((c) => `${c.file}: npm run ${c.script}`);
    expect(missing).toEqual([]);
  });

  it("put -- before a script's flags (npm would take them as its own settings otherwise)", () => {
    expect(
      all
        .filter((c) => c.withoutSeparator.length > 0)
        .map((c) => `${c.file}: npm run ${c.script} ${c.withoutSeparator.join(' ')}`),
    ).toEqual([]);
  });

  it('give each script only flags its --help lists', () => {
    const unknown: string[] = [];
    let checked = 0;
    for (const c of all) {
      if (c.script === 'test' || c.args.length === 0) continue;
      const first = c.args[0] as string;
      const sub = /^[a-z][\w-]*$/.test(first) ? first : null;
      for (const word of c.args) {
        const flag = /^(--[a-z][a-z0-9-]*)/.exec(word)?.[1];
        if (flag === undefined) continue;
        checked++;
        const help = helpOf(c.script, sub);
        if (!new RegExp(`${flag}(?![a-z0-9-])`).test(help))
          unknown.push(`${c.file}: npm run ${c.script} -- ${sub ?? ''} ${flag}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(unknown).toEqual([]);
  }, 120_000);
});

describe('routes in README.md and docs/*.md', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_HOUR: '0' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('MCP.md names the Allow header the server sends for a GET on /mcp', async () => {
    const named = /`Allow: ([^`]+)`/.exec(text.get(join('docs', 'MCP.md')) ?? '')?.[1];
    expect(named).toBeDefined();
    const res = await fetch(`${server.url}/mcp`);
    await res.arrayBuffer();
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(named);
  });

  it('answer on a running server: not 404, nor 405 for the method the docs give (a bare path may need another)', async () => {
    const found = routes();
    expect(found.length).toBeGreaterThan(30);
    const search = (await (await fetch(`${server.url}/v1/attorneys?location=Chicago,%20IL&limit=1`)).json()) as {
      results: { listing_id: string }[];
    };
    const listingId = search.results[0]?.listing_id as string;
    // The public audit's objects: the served version's (docs/AUDIT.md), any other version's is a 404.
    const version = ((await (await fetch(`${server.url}/current.json`)).json()) as { version: string }).version;
    const fill: Record<string, string> = {
      version,
      path: 'meta.json',
      metro: 'chicago',
      listing_id: listingId,
      id: listingId,
      slug: 'chicago',
      code: 'rate_limited',
    };
    const failed: string[] = [];
    const seen = new Set<string>();
    for (const r of found) {
      const path = r.path.replace(/[{<](\w+)[}>]/g, (whole, name: string) => fill[name] ?? whole);
      if (seen.has(`${r.method} ${path}`)) continue;
      seen.add(`${r.method} ${path}`);
      // A bare prefix (`/v1/`, `/r/`, `/v/<version>/...`) names a family of routes, not a route: it must prefix one
      // the docs name.
      if (r.path.endsWith('/...') || (path.length > 1 && path.endsWith('/') && !r.explicit)) {
        const family = r.path.replace(/\.\.\.$/, '');
        if (!found.some((o) => o.path !== r.path && o.path.startsWith(family)))
          failed.push(`${r.file}: no route the docs name starts with ${r.path}`);
        continue;
      }
      if (/[{<]/.test(path)) {
        failed.push(`${r.file}: ${r.path} has a placeholder this test cannot fill`);
        continue;
      }
      const res = await fetch(server.url + path, {
        method: r.method,
        redirect: 'manual',
        ...(r.method === 'POST'
          ? {
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              body: '{}',
            }
          : {}),
      });
      await res.arrayBuffer();
      if (res.status === 404 || (r.explicit && res.status === 405))
        failed.push(`${r.file}: ${r.method} ${r.path} answered ${res.status}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);
});
