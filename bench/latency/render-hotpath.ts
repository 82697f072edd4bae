/** The hot-path section of BENCHMARKS.md and its rows of the Targets table. */
import type { HotpathReport } from './hotpath.ts';
import type { LambdaColdReport } from './hotpath-lambda.ts';
import { fmt, fmtBytes, fmtMs, fmtSpread, table, type Spread } from '../lib/stats.ts';

/** What bench/run.ts records for the section. */
export interface HotpathResults {
  http: HotpathReport | null;
  httpError?: string;
  lambda: LambdaColdReport | null;
  lambdaError?: string;
}

/** The same measurement before the answer cache kept answers from a query's second sight on: fixed, not measured by this run. */
const BEFORE =
  'Before this round (commit 2e46156: every miss stored in the answer cache, a Map re-insert on every cache hit, the ' +
  "log line's time text, Date and full character scan per line), measured by the same command on Node 24 on the same " +
  'machine just before the run above: answer cache, share of bare (CPU) 0.60 (0.55–0.61) at 1 mi, 0.59 (0.57–0.60) ' +
  'at 15 mi, 0.71 (0.68–0.74) at 50 mi (21, 25 and 20 µs of CPU per answer); distinct points 0.11, 0.08 and 0.08 ' +
  '(121, 186 and 183 µs); Lambda import 77.7 ms of CPU (67.9–79.3 ms), first answer 180.8 ms of CPU (175.7–208.9 ' +
  'ms). What a cached answer still costs beyond bare: about 2 µs of CPU in the app (the served version read, the ' +
  'cache lookup, the limiter, the log line: 1.2 µs of it), and node:http writing about eight headers instead of two. ' +
  'With a V8 compile cache made at build time and shipped read-only beside index.mjs (node:module ' +
  'enableCompileCache), the import took about 45 ms of CPU instead of 66 ms in a quick check; it is not built: the ' +
  "cache is only used by the exact Node version that wrote it, and Lambda's runtime version is not pinned by the " +
  'bundle.';

/**
 * The request path's CPU beyond bare and the search; a negative difference (the search, timed alone by the wall clock
 * on a loaded machine, took longer than the whole request's CPU) is not a measurement and is not shown as one.
 */
const rest = (us: number): string =>
  us >= 0 ? `${fmt(us, 0)} µs` : 'not measurable in this run (the search alone, timed by the wall clock, took longer)';

/** Heading of the section. */
export const HOTPATH_HEADING = '## 10. Hot path';
/** Throughput of cached repeated queries as a share of a bare node:http server sending the same bytes. */
export const HOTPATH_SHARE_OF_BARE = 0.8;
/** Import time of the Lambda bundle in a fresh process, ms. */
export const LAMBDA_IMPORT_MS = 100;

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const x = (s: Spread): string => fmtSpread(s, (v) => `${fmt(v, 2)}x`);
const ms = (s: Spread): string => fmtSpread(s, fmtMs);
const us = (s: Spread): string => fmtSpread(s, (v) => `${fmt(v, 0)} µs`);

/** Rows for the Targets table (name, met or not, measured, note), in the shape bench/report.ts renders. */
export function hotpathTargetRows(
  h: HotpathResults | undefined,
): { name: string; ok: boolean | null; measured: string; note: string }[] {
  const shareName = `/v1/attorneys, repeated queries, >= ${HOTPATH_SHARE_OF_BARE} of a bare node:http server (judged on server CPU per answer; throughput beside it)`;
  const importName = `Lambda import < ${LAMBDA_IMPORT_MS} ms (CPU time of the import in a fresh process; wall time beside it)`;
  if (h === undefined) return [];
  const rows = [];
  if (h.http !== null) {
    const ok = h.http.cpuRatios.every((r) => r.cached.median >= HOTPATH_SHARE_OF_BARE);
    const worst = Math.min(...h.http.cpuRatios.map((r) => r.cached.median));
    rows.push({
      name: shareName,
      ok,
      measured:
        'CPU: ' +
        h.http.cpuRatios.map((r) => `${r.radiusMiles} mi: ${x(r.cached)}`).join('; ') +
        ` (throughput: ${h.http.ratios.map((r) => `${r.radiusMiles} mi ${fmt(r.cached.median, 2)}x`).join(', ')}; distinct points, CPU: ${h.http.cpuRatios.map((r) => `${r.radiusMiles} mi ${fmt(r.distinct.median, 2)}x`).join(', ')})`,
      note: ok
        ? ''
        : `Short by ${fmt(HOTPATH_SHARE_OF_BARE - worst, 2)} (${fmt(worst, 2)} of the bare server's CPU efficiency at the worst radius). Judged on CPU because on this loaded machine the throughput runs are bound by autocannon's share of the two cores (the bare server reaches a tenth of its quiet-machine rate, and the cached shim sometimes out-runs it), so their ratio says little about the server. A cached answer still costs what the contract asks of every request and the bare server skips: the served version read, the limiter count and RateLimit headers, about a dozen headers written instead of two, and the request-log line (ISO time, HMAC of the address under the day's salt, JSON, batched file write). See 10.`,
    });
  } else rows.push({ name: shareName, ok: null, measured: h.httpError ?? 'skipped', note: '' });
  if (h.lambda !== null) {
    const ok = h.lambda.importCpuMs.median < LAMBDA_IMPORT_MS;
    rows.push({
      name: importName,
      ok,
      measured: `CPU ${ms(h.lambda.importCpuMs)}, wall ${ms(h.lambda.importMs)}; first answer after it: CPU ${ms(h.lambda.firstAnswerCpuMs)}, wall ${ms(h.lambda.firstAnswerMs)}`,
      note: ok
        ? 'Judged on CPU time because the wall time on this shared machine measures the queue for its two cores (see the load in Machine) more than the import.'
        : `Over by ${fmtMs(h.lambda.importCpuMs.median - LAMBDA_IMPORT_MS)} of CPU time. What index.mjs still loads at start-up: zod (the contract schemas), h3-js and the search core, all needed by the first search; the AWS SDK's S3 client and the MCP server are loaded by the first request that needs them (shim/aws/lazy-s3.ts, compose.ts).`,
    });
  } else rows.push({ name: importName, ok: null, measured: h.lambdaError ?? 'skipped', note: '' });
  return rows;
}

/** The section. */
export function hotpathSection(h: HotpathResults | undefined): string {
  const out = [HOTPATH_HEADING, ''];
  if (h === undefined) return [...out, 'Skipped.'].join('\n');
  if (h.http !== null) {
    const p = h.http;
    out.push(
      `autocannon, ${p.connections} connections, ${p.durationSec} s per target and run, ${p.runs} runs, the four targets taking turns in every run; ${p.paths} \`/v1/attorneys\` point queries per radius (the points of section 1), no Accept-Encoding, RATE_LIMIT_PER_HOUR=0. ` +
        '*bare node:http* answers each path with the exact bytes the shim sends for it and nothing else (content-type and length); ' +
        '*answer cache* is the real server (`npm start`) with its default answer cache, repeated queries (after the warm-up every answer is an answer-cache hit, looked up before routing); ' +
        '*no answer cache* is the same server with ANSWER_CACHE_MIB=0 (every request through the app and a search); ' +
        `*distinct points* is the cached server asked a new point within ${p.jitterMiles} miles of a base point on every request (every answer a miss, stored after it is sent). ` +
        'The search alone is `service.findAttorneys` warm in-process on the same queries.',
      '',
      table(
        [
          'Radius',
          'Target',
          'Requests/s',
          'p50',
          'p99',
          'Share of bare (throughput)',
          'Server CPU per answer',
          'Share of bare (CPU)',
          'Failures',
        ],
        p.cells.map((c) => {
          const pick = (list: HotpathReport['ratios']): Spread | undefined => {
            const r = list.find((q) => q.radiusMiles === c.radiusMiles);
            return c.target === 'shim, answer cache'
              ? r?.cached
              : c.target === 'shim, no answer cache'
                ? r?.uncached
                : c.target === 'shim, distinct points'
                  ? r?.distinct
                  : undefined;
          };
          const share = pick(p.ratios);
          const cpuShare = pick(p.cpuRatios);
          return [
            `${c.radiusMiles} mi`,
            c.target,
            fmtSpread(c.rps, n0),
            fmtSpread(c.p50, (v) => `${v} ms`),
            fmtSpread(c.p99, (v) => `${v} ms`),
            share ? x(share) : '1',
            us(c.cpuUs),
            cpuShare ? x(cpuShare) : '1',
            String(c.failures),
          ];
        }),
      ),
      '',
      table(
        [
          'Radius',
          'Search alone (in-process)',
          'Request path, cached answer (CPU beyond bare)',
          'Request path, no answer cache (CPU beyond bare and the search)',
        ],
        p.ratios.map((r) => {
          const search = p.searchUs[String(r.radiusMiles)] ?? Number.NaN;
          const cpu = (t: string): number =>
            p.cells.find((c) => c.radiusMiles === r.radiusMiles && c.target === t)?.cpuUs.median ?? Number.NaN;
          const bare = cpu('bare node:http');
          return [
            `${r.radiusMiles} mi`,
            `${fmt(search, 0)} µs`,
            `${fmt(cpu('shim, answer cache') - bare, 0)} µs`,
            rest(cpu('shim, no answer cache') - bare - search),
          ];
        }),
      ),
      '',
      "Server CPU per answer is the CPU time (user + system) of the one process holding every server over a target's run, divided by its answers: unlike throughput it does not depend on how much of the two shared cores autocannon and other processes got, so it is the steadier measure of the request path on a loaded machine. Share of bare (CPU) is bare's CPU per answer over the target's, the throughput share a server-bound run would show.",
    );
  } else out.push(`HTTP part not measured${h.httpError !== undefined ? `: ${h.httpError}` : ''}.`);
  out.push('');
  if (h.lambda !== null) {
    const l = h.lambda;
    out.push(
      `Lambda cold start: the bundle infra builds (index.mjs ${fmtBytes(l.entryBytes)}; ${l.files} files, ${fmtBytes(l.totalBytes)} in all, the MCP route, the AWS SDK's S3 client and its credential providers in chunks loaded on demand), imported in ${l.importMs.runs} fresh node processes with a real environment: the sample site published to s3rver on loopback, a salt bucket beside it. ` +
        `Then the handler's first answer to \`${l.query}\` (pointer, meta, gazetteer and cell tree read over S3, the day's salt created), and a second one.`,
      '',
      table(
        [
          'Import (wall)',
          'Import (CPU)',
          'First answer (wall)',
          'First answer (CPU)',
          'Import + first answer (wall)',
          'Second answer (wall)',
        ],
        [
          [
            ms(l.importMs),
            ms(l.importCpuMs),
            ms(l.firstAnswerMs),
            ms(l.firstAnswerCpuMs),
            ms(l.coldTotalMs),
            ms(l.secondAnswerMs),
          ],
        ],
      ),
    );
  } else out.push(`Lambda cold start not measured${h.lambdaError !== undefined ? `: ${h.lambdaError}` : ''}.`);
  out.push('', BEFORE);
  return out.join('\n');
}
