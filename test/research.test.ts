/** `npm run research`: weekly search counts by metro and ZIP3 from a crafted request log, small cells suppressed. */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countSearches, NO_METRO, type ResearchCounts } from '../generator/research/counts.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { rng } from './helpers/rng.ts';

afterAll(removeTempDirs);

interface Line {
  time: string;
  endpoint: string;
  status: number;
  query_id: string | null;
  metro: string | null;
  zip3: string | null;
  location: string;
  user_agent: string;
  address_hash: string;
  src: null;
  covered: boolean | null;
  result_count: number | null;
}

/** A crafted week of log lines (2026-W47 is 2026-11-16 .. 2026-11-22) plus lines either side and lines that are not searches. */
function craft(): Line[] {
  const rand = rng(47);
  const metros = ['chicago', 'austin', 'boston', null];
  const zip3s = ['606', '787', '021', '100', null];
  const days = ['2026-11-15', '2026-11-16', '2026-11-18', '2026-11-22', '2026-11-23'];
  const out: Line[] = [];
  for (let i = 0; i < 900; i++) {
    const metro = metros[Math.floor(rand() * metros.length * rand())] ?? null;
    const zip3 = zip3s[Math.floor(rand() * zip3s.length * rand())] ?? null;
    const kind = rand();
    const endpoint = kind < 0.7 ? '/v1/attorneys' : kind < 0.85 ? '/mcp find_injury_attorneys' : '/v1/firms/{listing_id}';
    const status = rand() < 0.9 ? 200 : 400;
    const search = endpoint !== '/v1/firms/{listing_id}' && status === 200;
    out.push({
      time: `${days[Math.floor(rand() * days.length)] as string}T${String(Math.floor(rand() * 24)).padStart(2, '0')}:00:00.000Z`,
      endpoint,
      status,
      query_id: search ? `q${i}` : null,
      metro: search ? metro : null,
      zip3: search ? zip3 : null,
      location: 'somewhere',
      user_agent: 'test',
      address_hash: 'abcdef0123456789',
      src: null,
      covered: search ? metro !== null : null,
      result_count: search ? 3 : null,
    });
  }
  // One rare ZIP3 with 9 searches (suppressed) and one with exactly 10 (shown).
  for (let i = 0; i < 19; i++) out.push({ ...(out[0] as Line), time: '2026-11-17T12:00:00.000Z', endpoint: '/v1/attorneys', status: 200, query_id: `r${i}`, metro: 'tampa', zip3: i < 9 ? '335' : '336' });
  return out;
}

/** Brute force: the week's answered searches counted by a key. */
function expected(lines: Line[], key: 'metro' | 'zip3'): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of lines) {
    const day = l.time.slice(0, 10);
    if (day < '2026-11-16' || day > '2026-11-22' || l.status !== 200 || l.query_id === null) continue;
    const k = l[key] ?? (key === 'metro' ? NO_METRO : '(no ZIP)');
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function check(counts: ResearchCounts, lines: Line[]): void {
  for (const [key, cells] of [['metro', counts.by_metro], ['zip3', counts.by_zip3]] as const) {
    const want = expected(lines, key);
    expect(cells.map((c) => c.key)).toEqual([...want.keys()].sort());
    for (const c of cells) {
      const n = want.get(c.key) as number;
      if (n < 10) expect(c).toEqual({ key: c.key, searches: null, suppressed: true });
      else expect(c).toEqual({ key: c.key, searches: n });
    }
  }
  expect(counts.by_zip3.find((c) => c.key === '335')).toEqual({ key: '335', searches: null, suppressed: true });
  expect(counts.by_zip3.find((c) => c.key === '336')).toEqual({ key: '336', searches: 10 });
}

describe('research counts', () => {
  it('counts the week by metro and ZIP3 like a brute-force count, suppressing cells under 10', () => {
    const lines = craft();
    const counts = countSearches(lines, '2026-W47', '2026-11-16', '2026-11-22');
    check(counts, lines);
    expect(counts.searches).toBe([...expected(lines, 'metro').values()].reduce((a, b) => a + b, 0));
    expect(countSearches(lines.slice(0, 5), '2026-W47', '2026-11-16', '2026-11-22').searches).toBeNull();
  });

  it('the CLI reads the local log files of the week and a CloudWatch export, and has --help', async () => {
    const lines = craft();
    const dir = await tempDir('research');
    const log = join(dir, 'log');
    await mkdir(log);
    const byDay = new Map<string, Line[]>();
    for (const l of lines) byDay.set(l.time.slice(0, 10), [...(byDay.get(l.time.slice(0, 10)) ?? []), l]);
    // Half the days locally, the other half as a CloudWatch export (events with the line in "message").
    const days = [...byDay.keys()].sort();
    const cloud: string[] = [];
    for (const [i, day] of days.entries()) {
      const text = (byDay.get(day) as Line[]).map((l) => JSON.stringify(l));
      if (i % 2 === 0) await writeFile(join(log, `requests-${day}.jsonl`), `${text.join('\n')}\n`);
      else cloud.push(...text.map((t) => JSON.stringify({ timestamp: 0, message: JSON.stringify({ type: 'request', ...JSON.parse(t) }) })));
    }
    await writeFile(join(dir, 'export.jsonl'), `${cloud.join('\n')}\nnot json\n`);
    const out = join(dir, 'out');
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'generator/research/cli.ts', '--week', '2026-W47', '--log', log, '--cloudwatch', join(dir, 'export.jsonl'), '--out', out], { encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toContain('1 unreadable skipped');
    const counts = JSON.parse(await readFile(join(out, '2026-W47.json'), 'utf8')) as ResearchCounts;
    check(counts, lines);
    const help = spawnSync(process.execPath, ['--import', 'tsx', 'generator/research/cli.ts', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--cloudwatch/);
  });
});
