/**
 * Load on loopback for the benchmarks of sections 2, 10 and 12: autocannon against a set of targets that take turns
 * in every run (so a change in the machine's load falls on all of them alike), after an untimed warm-up, with the
 * server process's CPU time per answer read around each run when the servers child has a bare server (/__cpu).
 */
import { createRequire } from 'node:module';
import { startJsonChild, type JsonChild } from '../lib/child.ts';
import { jittered } from '../lib/points.ts';

/** The servers the servers child (bench/latency/servers.ts) can hold. */
export const SERVER_NAMES = ['shim', 'uncached', 'static', 'naive', 'bare', 'hono'] as const;
/** One of SERVER_NAMES. */
export type ServerName = (typeof SERVER_NAMES)[number];
/** Path on the bare server answering this process's CPU usage (user and system µs). */
export const CPU_PATH = '/__cpu';

/** The servers child's one line on stdout. */
export interface ServersReady {
  urls: Partial<Record<ServerName, string>>;
  /** Every path the servers were primed with: the dense points at each radius, then the --path ones. */
  paths: string[];
  /** With --search-timing: µs per warm in-process findAttorneys call, by radius. */
  searchUs: Record<string, number>;
  /** With naive: offices the naive index holds. */
  offices: number | null;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
/** One request of a target; setupRequest is called before each send and may return a changed request. */
export interface LoadRequest {
  method: string;
  path: string;
  /** A POST body and its headers (MCP), as autocannon sends them. */
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: LoadRequestSent) => LoadRequestSent;
}
/** What setupRequest sees and returns. */
export type LoadRequestSent = { method: string; path: string; body?: string; headers?: Record<string, string> };
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest[];
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One target of a turn: its name (unique within the run) and what to send where. */
export interface Turn {
  key: string;
  url: string;
  requests: LoadRequest[];
}

/** A target's figures, one entry per run. */
export interface TurnFigures {
  /** Answers per second. */
  rps: number[];
  /** autocannon's latency percentiles of the run, ms. */
  p50: number[];
  p99: number[];
  /** Response bytes per answer (mean). */
  bytes: number[];
  /** CPU time of the server process per answer (user + system over the run / answers), µs; empty without a CPU URL. */
  cpu: number[];
  /** Non-2xx answers, socket errors and timeouts over every run. */
  failures: number;
}

/** What a loopback benchmark over the dense points is asked for (sections 2 and 10). */
export interface LoadOptions {
  site: string;
  radii: readonly number[];
  runs: number;
  durationSec: number;
  connections: number;
  /** Scatter of the distinct-point target, in miles. */
  jitterMiles: number;
  onProgress?: (line: string) => void;
}

/**
 * A setupRequest that moves each request's lat and lng to a new point within `jitterMiles` of them (every answer a
 * miss: nothing per-point memoised helps).
 */
export function scatterWithin(jitterMiles: number): NonNullable<LoadRequest['setupRequest']> {
  let n = 0;
  return (req) => {
    const q = new URLSearchParams(req.path.slice(req.path.indexOf('?')));
    const p = jittered({ lat: Number(q.get('lat')), lng: Number(q.get('lng')) }, jitterMiles, n++);
    q.set('lat', String(p.lat));
    q.set('lng', String(p.lng));
    return { ...req, path: `${req.path.slice(0, req.path.indexOf('?'))}?${q.toString()}` };
  };
}

/** Options of takeTurns. */
export interface TurnOptions {
  runs: number;
  durationSec: number;
  connections: number;
  /** Base URL of a server answering CPU_PATH with the server process's CPU time (the servers child's bare server). */
  cpuUrl?: string;
  /** Prefix of the progress lines. */
  label: string;
  onProgress?: (line: string) => void;
}

/** Warm every target for a second, then `runs` runs in which the targets take turns in order; figures by key. */
export async function takeTurns(turns: readonly Turn[], opts: TurnOptions): Promise<Map<string, TurnFigures>> {
  // Warm-up (untimed): JIT, caches, keep-alive sockets.
  for (const t of turns)
    await autocannon({ url: t.url, connections: opts.connections, duration: 1, requests: t.requests });
  const cpuNow = async (): Promise<number | null> => {
    if (opts.cpuUrl === undefined) return null;
    const u = (await (await fetch(`${opts.cpuUrl}${CPU_PATH}`)).json()) as { user: number; system: number };
    return u.user + u.system;
  };
  const out = new Map<string, TurnFigures>();
  for (let run = 0; run < opts.runs; run++) {
    for (const t of turns) {
      const cpu0 = await cpuNow();
      const r = await autocannon({
        url: t.url,
        connections: opts.connections,
        duration: opts.durationSec,
        requests: t.requests,
      });
      const cpu1 = await cpuNow();
      const cell = out.get(t.key) ?? { rps: [], p50: [], p99: [], bytes: [], cpu: [], failures: 0 };
      out.set(t.key, cell);
      const rps = r.requests.total / r.duration;
      const failures = r.non2xx + r.errors + r.timeouts;
      cell.rps.push(rps);
      cell.p50.push(r.latency.p50);
      cell.p99.push(r.latency.p99);
      cell.bytes.push(r.throughput.average / Math.max(1, r.requests.average));
      const cpuUs = cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / Math.max(1, r.requests.total) : null;
      if (cpuUs !== null) cell.cpu.push(cpuUs);
      cell.failures += failures;
      opts.onProgress?.(
        `${opts.label} run ${run + 1}/${opts.runs} ${t.key}: ${rps.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms` +
          (cpuUs !== null ? `, server CPU ${cpuUs.toFixed(0)} µs/answer` : '') +
          (failures > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts` : ''),
      );
    }
  }
  return out;
}

/** Start the servers child (bench/latency/servers.ts) with `servers` over `site`; stop it when done. */
export function startServers(
  site: string,
  servers: readonly ServerName[],
  opts: { radii?: readonly number[]; paths?: readonly string[]; searchTiming?: boolean; tag: string },
): Promise<JsonChild<ServersReady>> {
  return startJsonChild<ServersReady>(
    'bench/latency/servers.ts',
    [
      '--site',
      site,
      '--with',
      servers.join(','),
      ...(opts.radii !== undefined && opts.radii.length > 0 ? ['--radii', opts.radii.join(',')] : []),
      ...(opts.paths ?? []).flatMap((p) => ['--path', p]),
      ...(opts.searchTiming === true ? ['--search-timing'] : []),
    ],
    { tag: opts.tag },
  );
}
