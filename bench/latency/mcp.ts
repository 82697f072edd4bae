/**
 * Section 13 of `npm run bench` (`--only mcp`): an MCP `tools/call` search against the same REST search, side by side
 * in one run, judged on the server's CPU time per answer. Every request is a new point (15 mi, limit 10) within about
 * a mile of New York, Los Angeles or Chicago, so every answer is a search (no answer cache helps either side):
 *   REST  GET /v1/attorneys?lat=&lng=&radius_miles=15&limit=10
 *   MCP   POST /mcp tools/call find_injury_attorneys { lat, lng, radius_miles: 15, limit: 10 }, stateless, in the 2025
 *         revision (no handshake needed: the header alone) and in 2026-07-28 (the per-request envelope).
 * The servers run in the servers child (servers.ts), autocannon here; the targets take turns in every run.
 */
import { loadavg } from 'node:os';
import { spread, type Spread } from '../lib/stats.ts';
import { startServers, takeTurns, type LoadRequest, type LoadRequestSent } from './turns.ts';

const RADIUS = 15;
const LIMIT = 10;
const MODERN = '2026-07-28';
/** Base points: the dense metros' centres; each request is moved off one. */
const BASES = [
  { lat: 40.7128, lng: -74.006 },
  { lat: 34.0522, lng: -118.2437 },
  { lat: 41.8781, lng: -87.6298 },
];

/** The three targets, in the order each run takes them. */
export const MCP_TARGETS = [
  'REST GET /v1/attorneys',
  'MCP tools/call (2025-11-25)',
  'MCP tools/call (2026-07-28)',
] as const;
/** One of MCP_TARGETS. */
export type McpTarget = (typeof MCP_TARGETS)[number];

/** One target over the runs. */
export interface McpRow {
  target: McpTarget;
  rps: Spread;
  cpuUs: Spread;
  /** The target's CPU per answer over REST's, paired per run (1 for REST). */
  cpuOverRest: Spread;
  /** Mean response bytes. */
  bytes: number;
  failures: number;
}

/** The section's measurement. */
export interface McpReport {
  rows: McpRow[];
  connections: number;
  durationSec: number;
  runs: number;
  loadStart: number;
  loadEnd: number;
}

/** Options of measureMcp. */
export interface McpOptions {
  site: string;
  runs: number;
  durationSec: number;
  connections: number;
  onProgress?: (line: string) => void;
}

/** The n-th point: never the same twice at 5 decimals, up to ~1 mile off a base. */
function pointAt(n: number): { lat: number; lng: number } {
  const b = BASES[n % BASES.length] ?? { lat: 0, lng: 0 };
  const lat = b.lat + ((n * 0.0000731) % 0.03) - 0.015;
  const lng = b.lng + ((n * 0.0001379) % 0.03) - 0.015;
  return { lat: Number(lat.toFixed(5)), lng: Number(lng.toFixed(5)) };
}

const restPath = (p: { lat: number; lng: number }): string =>
  `/v1/attorneys?lat=${p.lat}&lng=${p.lng}&radius_miles=${RADIUS}&limit=${LIMIT}`;

/** The tools/call body of a point in one revision. */
function mcpBody(p: { lat: number; lng: number }, version: string): string {
  const args = { lat: p.lat, lng: p.lng, radius_miles: RADIUS, limit: LIMIT };
  const meta =
    version === MODERN
      ? {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        }
      : {};
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'find_injury_attorneys', arguments: args, ...meta },
  });
}

function mcpHeaders(version: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    ...(version === MODERN ? { 'mcp-method': 'tools/call', 'mcp-name': 'find_injury_attorneys' } : {}),
  };
}

/** The request of a target, moved to a new point before each send. */
function requestOf(target: McpTarget): LoadRequest {
  let n = 0;
  if (target === 'REST GET /v1/attorneys')
    return { method: 'GET', path: restPath(pointAt(0)), setupRequest: (r) => ({ ...r, path: restPath(pointAt(++n)) }) };
  const version = target.includes(MODERN) ? MODERN : '2025-11-25';
  const headers = mcpHeaders(version);
  const move = (r: LoadRequestSent): LoadRequestSent => ({ ...r, body: mcpBody(pointAt(++n), version), headers });
  return { method: 'POST', path: '/mcp', body: mcpBody(pointAt(0), version), headers, setupRequest: move };
}

/** Check once, before timing, that each target answers a search (a wrong setup would time errors). */
async function checkTargets(url: string): Promise<void> {
  const rest = await fetch(url + restPath(pointAt(0)));
  if (rest.status !== 200) throw new Error(`REST search answered ${rest.status}`);
  for (const version of ['2025-11-25', MODERN]) {
    const r = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(version),
      body: mcpBody(pointAt(0), version),
    });
    const body = (await r.json()) as { result?: { isError?: boolean; structuredContent?: { results?: unknown[] } } };
    if (
      r.status !== 200 ||
      body.result?.isError === true ||
      (body.result?.structuredContent?.results?.length ?? 0) === 0
    )
      throw new Error(`MCP ${version} tools/call answered ${r.status}: ${JSON.stringify(body).slice(0, 200)}`);
  }
}

/** Run the comparison and return its figures. */
export async function measureMcp(opts: McpOptions): Promise<McpReport> {
  const child = await startServers(opts.site, ['shim', 'bare'], { paths: [restPath(pointAt(0))], tag: 'mcp' });
  const loadStart = loadavg()[0] ?? 0;
  try {
    const { urls } = child.first;
    const shim = urls.shim ?? '';
    await checkTargets(shim);
    const raw = await takeTurns(
      MCP_TARGETS.map((t) => ({ key: t, url: shim, requests: [requestOf(t)] })),
      { ...opts, cpuUrl: urls.bare ?? '', label: 'mcp' },
    );
    const rest = raw.get(MCP_TARGETS[0]);
    const rows: McpRow[] = [];
    for (const t of MCP_TARGETS) {
      const c = raw.get(t);
      if (c === undefined || rest === undefined) continue;
      rows.push({
        target: t,
        rps: spread(c.rps),
        cpuUs: spread(c.cpu),
        cpuOverRest: spread(c.cpu.map((v, i) => v / (rest.cpu[i] ?? Number.NaN))),
        bytes: c.bytes.reduce((a, b) => a + b, 0) / Math.max(1, c.bytes.length),
        failures: c.failures,
      });
    }
    return {
      rows,
      connections: opts.connections,
      durationSec: opts.durationSec,
      runs: opts.runs,
      loadStart,
      loadEnd: loadavg()[0] ?? 0,
    };
  } finally {
    await child.stop();
  }
}
