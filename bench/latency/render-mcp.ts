/** The MCP-against-REST section of BENCHMARKS.md and its row of the Targets table. */
import { fmt, fmtSpread, table, type Spread } from '../lib/stats.ts';
import type { McpReport } from './mcp.ts';

/** Heading of the section. */
export const MCP_HEADING = '## 13. MCP tools/call against the same REST search';
/** Most server CPU an MCP search may take per answer, as a multiple of the same REST search's. */
export const MCP_OVER_REST = 2;

/** Where an MCP call's CPU goes beyond the REST search (a --cpu-prof of the route in-process), fixed text. */
const WHERE =
  'Where the CPU beyond REST goes (a `--cpu-prof` of the app in-process, 2025-11-25, about 440 µs a call against ' +
  'about 95 µs for the REST miss): the search and its shaping are the same as REST; the SDK serialises the answer ' +
  'with `Response.json` (about a tenth of the busy time), validates the JSON-RPC request with zod, builds and ' +
  'closes an McpServer and its transport per request (the close makes an error object for the connection), and the ' +
  'garbage of its web Request, Response and stream objects keeps the collector busy (about a sixth). The compact ' +
  '`structuredContent` and the text block take about 30 µs (hours texts are now made once per office), the Request ' +
  'handed to the SDK no longer carries the body it gets parsed (about a tenth of a call). A pooled McpServer would ' +
  'save about 12 µs: the SDK connects a closed instance again, but keeps per-exchange state on it (the negotiated ' +
  "revision, the client's identity from the envelope) that would reach the next caller, so none is pooled. A cheaper " +
  'REST search raises the ratio as much as a cheaper MCP call lowers it: 2x needs the SDK per-call work (about 300 ' +
  'µs) cut to about a third, inside the SDK.';

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const x = (s: Spread): string => fmtSpread(s, (v) => fmt(v, 2));
const us = (s: Spread): string => fmtSpread(s, (v) => `${n0(v)} µs`);

/** The worse of the two MCP rows (the higher CPU over REST). */
function worst(p: McpReport): McpReport['rows'][number] | undefined {
  return p.rows
    .filter((r) => r.target.startsWith('MCP'))
    .sort((a, b) => b.cpuOverRest.median - a.cpuOverRest.median)[0];
}

/** The row for the Targets table (name, met or not, measured, note), in the shape bench/report.ts renders. */
export function mcpTargetRows(
  p: McpReport | undefined,
): { name: string; ok: boolean | null; measured: string; note: string }[] {
  const name = `MCP tools/call search at most ${MCP_OVER_REST}x the server CPU of the same REST search (a new point every request)`;
  const row = p === undefined ? undefined : worst(p);
  if (row === undefined) return [{ name, ok: null, measured: 'not measured', note: '' }];
  const ok = row.cpuOverRest.median <= MCP_OVER_REST;
  return [
    {
      name,
      ok,
      measured: `${row.target}: ${x(row.cpuOverRest)}x (${us(row.cpuUs)} per answer)`,
      note: ok ? '' : `Over by ${fmt(row.cpuOverRest.median - MCP_OVER_REST, 2)}x. See 13.`,
    },
  ];
}

/** The section. */
export function mcpSection(p: McpReport | undefined): string {
  const out = [MCP_HEADING, ''];
  if (p === undefined) return [...out, 'Skipped.'].join('\n');
  out.push(
    `autocannon, ${p.connections} connections, ${p.durationSec} s per target and run, ${p.runs} runs, the three targets taking turns in every run; load ${fmt(p.loadStart, 1)} at start, ${fmt(p.loadEnd, 1)} at end. ` +
      'One server process (bench/latency/servers.ts, the real local server with its default answer cache, RATE_LIMIT_PER_HOUR=0); autocannon runs in the parent. ' +
      'Every request is a new point within about a mile of New York, Los Angeles or Chicago, 15 mi, limit 10, so each answer is a search on both sides: `GET /v1/attorneys?lat=&lng=&radius_miles=15&limit=10` against `POST /mcp` `tools/call` `find_injury_attorneys` with the same arguments, stateless, in the 2025 revision (the header alone, no handshake) and in 2026-07-28 (the per-request envelope). No Accept-Encoding.',
    '',
    table(
      ['Target', 'Answers/s', 'Server CPU per answer', 'CPU over REST', 'Bytes per answer', 'Failures'],
      p.rows.map((r) => [
        r.target,
        fmtSpread(r.rps, n0),
        us(r.cpuUs),
        `${x(r.cpuOverRest)}x`,
        n0(r.bytes),
        String(r.failures),
      ]),
    ),
    '',
    "Server CPU per answer is the CPU time (user + system) of the server process over a target's run, divided by its answers; CPU over REST is paired per run. An MCP answer carries both the text block and the compact `structuredContent`.",
    '',
    WHERE,
  );
  return out.join('\n');
}
