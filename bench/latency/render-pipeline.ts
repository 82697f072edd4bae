/** The request-pipeline section of BENCHMARKS.md and its rows of the Targets table. */
import { fmt, fmtSpread, table, type Spread } from '../lib/stats.ts';
import type { PipelineReport, PipelineRow } from './pipeline.ts';

/** Heading of the section. */
export const PIPELINE_HEADING = '## 12. Request pipeline against bare node:http';
/** The miss path's share of a bare node:http server's CPU efficiency. */
export const MISS_SHARE_OF_BARE = 0.3;
/** /v1/coverage's share of a bare node:http server's CPU efficiency. */
export const COVERAGE_SHARE_OF_BARE = 0.6;

/** The figures before the pipeline was rebuilt on Hono (issue 27), for comparison: fixed, not measured by this run. */
const BASELINE =
  'Before the request pipeline was rebuilt (commit 72a952d: a hand-written router, the search parsed twice, the body ' +
  'copied through about six Response objects), this section measured on the same sample site, quiet machine (load ' +
  '0.7): (a) 2,035 µs of server CPU per answer, 0.05 of bare; (b) 457 µs, 0.19 of bare. The first measurement, on ' +
  'commit d3d95d0, was 0.08 and 0.21 by throughput.';

/** Where the CPU beyond bare still goes (a --cpu-prof of the server at the rebuild), for a missed target. */
const SHORTFALL =
  'Where the rest goes (a `--cpu-prof` of the server at the rebuild): on a miss, no one item is above about 15% of ' +
  "the busy time: node's request parsing and the socket writes of the 17 KB answer, the search and shaping " +
  '(`findAttorneys`, about 90 µs), the UTF-8 encoding of the answer text (about 45 µs), the answer cache storing the ' +
  "identity form, the fast path's parse, Hono's dispatch and the log line. A coverage answer is mostly node's own " +
  "parsing and writing; the app's middleware and handler are about 15% of it. Closing the gap would take a miss path " +
  'without web Request/Response objects at all (as the answer-cache fast path already is), which would repeat the ' +
  "pipeline's header and log rules in a second place, or encoded bytes kept per office; neither is built.";

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const x = (s: Spread): string => fmtSpread(s, (v) => fmt(v, 2));
const us = (s: Spread): string => fmtSpread(s, (v) => `${n0(v)} µs`);

const serviceRow = (p: PipelineReport, part: '(a)' | '(b)'): PipelineRow | undefined =>
  p.rows.find((r) => r.target.startsWith(part) && r.target.endsWith(': service'));

/** Rows for the Targets table (name, met or not, measured, note), in the shape bench/lib/report.ts renders. */
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
  return parts.map(([part, what, share]) => {
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
    BASELINE,
    '',
    SHORTFALL,
  );
  return out.join('\n');
}
