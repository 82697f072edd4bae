/** The request-pipeline section of BENCHMARKS.md and its rows of the Targets table. */
import { fmt, fmtSpread, table, type Spread } from '../lib/stats.ts';
import type { PipelineReport, PipelineRow } from './pipeline.ts';

/** Heading of the section. */
export const PIPELINE_HEADING = '## 12. Request pipeline against bare node:http';
/** The miss path's share of a bare node:http server's CPU efficiency. */
export const MISS_SHARE_OF_BARE = 0.3;
/** /v1/coverage's share of a bare node:http server's CPU efficiency. */
export const COVERAGE_SHARE_OF_BARE = 0.6;
/** Project modules one miss may pass. */
export const MISS_MODULES_MAX = 20;

/** The figures before the pipeline was rebuilt on Hono (issue 27), for comparison: fixed, not measured by this run. */
const BASELINE =
  'Before the request pipeline was rebuilt (commit 72a952d: a hand-written router, the search parsed twice, the body ' +
  'copied through about six Response objects), this section measured on the same sample site, quiet machine (load ' +
  '0.7): (a) 2,035 µs of server CPU per answer, 0.05 of bare; (b) 457 µs, 0.19 of bare. Before routes returned plain ' +
  'answers (commit 8ffff2c): (a) 278 µs, 0.05 of bare by CPU; (b) 29 µs, 0.49 of bare; 43 project modules. Before ' +
  'this round (commit 2e46156: every miss stored in the answer cache), measured by the same command on Node 24 on ' +
  'the same machine just before the run below: (a) 180 µs (178–186 µs), 0.10 (0.09–0.10) of bare by CPU; (b) 20 µs ' +
  '(20–22 µs), 0.66 (0.63–0.68) of bare; one miss passed 42 project modules.';

/** Where the CPU beyond bare still goes, for a missed target. */
const SHORTFALL =
  'Where a miss goes now (`--cpu-prof` and `perf` of the app called in-process and of the server under load, new ' +
  'points, 15 mi, limit 10): the search and its answer bytes (`findAttorneys` and `answerBytes`) take about 75 µs of ' +
  'CPU in-process, four times a whole bare answer: the cell-tree walk and the nearest-firm search about a third, ' +
  'the location (US boundary, metro, state) about a tenth, parsing and the query id about a tenth, about 35 reads of ' +
  'cached objects (each a resolved promise awaited), shaping and the bytes; the edge (routing, admission, headers, ' +
  'the log line) about 15 µs, and the garbage collector the rest. An answer is now stored only when its query comes ' +
  'a second time (storing every miss cost about 25 µs, the collector moving retained 17 KB answers), and a cache ' +
  'hit no longer re-inserts its Map key. 0.3 of bare is about 55 µs per miss in all, less than the search alone: ' +
  'the target needs a search core about twice as cheap (cached objects read without a promise, fewer objects made ' +
  'per search), not a cheaper edge. Of the modules one miss passes, 23 are the search core (shim/contract, format, search, places, answer, lib); the thin ' +
  'ones (coverage, query-id, search, paths, integrity, layers; shim/http salt, log-text, answer, target, ' +
  'search-query; shim/store/request-deadline) each hold one concern, and folding all twelve into their callers ' +
  'would still leave 30: fewer, larger modules in the kernel, not a cheaper edge, would bring the count down.';

/** The kernel's folders: what a miss passes besides the edge (shim/http, shim/edge, the composition). */
const KERNEL = /^shim\/(?:lib|contract|format|search|places|answer)\//;

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const x = (s: Spread): string => fmtSpread(s, (v) => fmt(v, 2));
const us = (s: Spread): string => fmtSpread(s, (v) => `${n0(v)} µs`);

const serviceRow = (p: PipelineReport, part: '(a)' | '(b)'): PipelineRow | undefined =>
  p.rows.find((r) => r.target.startsWith(part) && r.target.endsWith(': service'));

/** Rows for the Targets table (name, met or not, measured, note), in the shape bench/report.ts renders. */
export function pipelineTargetRows(
  p: PipelineReport | undefined,
): { name: string; ok: boolean | null; measured: string; note: string }[] {
  if (p === undefined) return [];
  const parts = [
    [
      '(a)',
      `/v1/attorneys miss path (a new point every request), >= ${MISS_SHARE_OF_BARE} of a bare node:http server`,
      MISS_SHARE_OF_BARE,
    ],
    ['(b)', `/v1/coverage, >= ${COVERAGE_SHARE_OF_BARE} of a bare node:http server`, COVERAGE_SHARE_OF_BARE],
  ] as const;
  const modules = p.missModules;
  const moduleRow = {
    name: `one /v1/attorneys miss passes at most ${MISS_MODULES_MAX} project modules`,
    ok: modules === null ? null : modules.length <= MISS_MODULES_MAX,
    measured: modules === null ? 'not measured' : `${modules.length} modules`,
    note:
      modules === null || modules.length <= MISS_MODULES_MAX
        ? ''
        : `Over by ${modules.length - MISS_MODULES_MAX}: ${modules.filter((m) => KERNEL.test(m)).length} of them are the kernel's (shim/contract, format, search, places, answer, lib). See 12.`,
  };
  const shares = parts.map(([part, what, share]) => {
    const row = serviceRow(p, part);
    const name = `${what} (judged on server CPU per answer; throughput beside it)`;
    if (row === undefined) return { name, ok: null, measured: 'not measured', note: '' };
    const ok = row.cpuRatio.median >= share;
    return {
      name,
      ok,
      measured: `CPU: ${x(row.cpuRatio)} (${us(row.cpuUs)} per answer); throughput: ${x(row.rpsRatio)}`,
      note: ok ? '' : `Short by ${fmt(share - row.cpuRatio.median, 2)} of the bare server's CPU efficiency. See 12.`,
    };
  });
  return [...shares, moduleRow];
}

/** The section. */
export function pipelineSection(p: PipelineReport | undefined): string {
  const out = [PIPELINE_HEADING, ''];
  if (p === undefined) return [...out, 'Skipped.'].join('\n');
  out.push(
    `autocannon, ${p.connections} connections, ${p.durationSec} s per target and run, ${p.runs} runs, the six targets taking turns in every run; load ${fmt(p.loadStart, 1)} at start, ${fmt(p.loadEnd, 1)} at end. ` +
      'One process holds the servers (bench/latency/servers.ts): the real server with its default answer cache, a bare node:http server sending the same bytes, and a Hono app on @hono/node-server sending the same bytes; autocannon runs in the parent. ' +
      `(a) is the miss path: every request a new point within about a mile of New York, Los Angeles or Chicago, ${15} mi, limit 10, so every answer is an answer-cache miss and a search; (b) is \`/v1/coverage\`, a static document. No Accept-Encoding, RATE_LIMIT_PER_HOUR=0.`,
    '',
    table(
      ['Target', 'Answers/s', 'Ratio to bare (throughput)', 'Server CPU per answer', 'Ratio to bare (CPU)', 'Failures'],
      p.rows.map((r) => [
        r.target,
        fmtSpread(r.rps, n0),
        x(r.rpsRatio),
        us(r.cpuUs),
        x(r.cpuRatio),
        String(r.failures),
      ]),
    ),
    '',
    "Server CPU per answer is the CPU time (user + system) of the one process holding every server over a target's run, divided by its answers; the ratio to bare is bare's CPU per answer over the target's. The Hono rows are what the framework alone costs a request beyond bare node:http.",
    '',
    p.missModules === null
      ? 'Modules one miss passes: not counted in this run.'
      : `One miss passes ${p.missModules.length} project modules (bench/latency/miss-modules.ts: the real server under V8's precise coverage with call counts, counters reset after 50 warm misses, then one more miss and its log line; every file of the repository outside node_modules with a function called): ${p.missModules.map((m) => `\`${m}\``).join(', ')}.`,
    '',
    BASELINE,
    '',
    SHORTFALL,
  );
  return out.join('\n');
}
