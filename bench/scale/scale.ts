/** Scale: a synthetic nationwide dataset, the generator's time and peak memory on it, its cell tree, and query latency against the sample. */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { CellGroup, CellIndex } from '../../shim/format/cell-format.ts';
import { keys, Pointer } from '../../shim/format/site-format.ts';
import { decodeStored } from '../../shim/format/site-json.ts';
import { DEFAULT_CACHE_MIB } from '../../shim/edge/limits.ts';
import { lineSplitter, REPO, startJsonChild } from '../lib/child.ts';
import { ratioOfP50, type LatencyResult } from '../lib/query.ts';
import { median, type Spread } from '../lib/stats.ts';

/** Peak memory and time of one child process. */
export interface ProcessCost {
  ok: boolean;
  wallMs: number;
  /** Peak resident set size in bytes, or null when not measured. */
  peakRssBytes: number | null;
  /** How peak memory was measured. */
  method: string;
  command: string;
  /** The last lines of stderr when the process failed. */
  error?: string;
  stdout: string;
}

const TIME = '/usr/bin/time';

/**
 * The Node flags `npm run generate` runs the generator with (package.json's script, the tokens between `node` and
 * `--require`), so a benchmark times the generator as operators run it.
 */
export function generatorNodeArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (pkg.scripts?.generate ?? '').split(/\s+/);
  const end = words.indexOf('--require');
  return words[0] === 'node' && end > 0 ? words.slice(1, end) : [];
}

/**
 * Run `node --import tsx <script> <args>` under `/usr/bin/time -v` when present (peak RSS from "Maximum resident set
 * size"), otherwise polling /proc/<pid>/status VmHWM. stderr lines go to `onLine`.
 */
export function measureProcess(
  script: string,
  args: string[],
  onLine: (line: string) => void,
  nodeArgs: string[] = [],
): Promise<ProcessCost> {
  const useTime = existsSync(TIME);
  const nodeCmd = [process.execPath, ...nodeArgs, '--import', 'tsx', script, ...args];
  const argv = useTime ? [TIME, '-v', ...nodeCmd] : nodeCmd;
  // The report shows paths relative to the repository (it runs with cwd REPO), never this machine's own paths.
  const shown = args.map((a) => (isAbsolute(a) && !relative(REPO, a).startsWith('..') ? relative(REPO, a) : a));
  const command = `${useTime ? '/usr/bin/time -v ' : ''}node ${[...nodeArgs, '--import', 'tsx', script, ...shown].join(' ')}`;
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const tail: string[] = [];
    let hwm = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const lines = lineSplitter((line) => {
      if (line.trim() === '') return;
      tail.push(line);
      if (tail.length > 60) tail.shift();
      if (!/^\t/.test(line)) onLine(line);
    });
    child.stderr.on('data', (c: Buffer) => lines.push(c));
    child.stderr.on('end', () => lines.end());
    const poll = useTime
      ? null
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m?.[1]) hwm = Math.max(hwm, Number(m[1]) * 1024);
          } catch {
            // The process has exited, or /proc is not there.
          }
        }, 200);
    // 'close' (not 'exit'): stderr is fully read, so GNU time's report is in `tail`.
    child.once('close', (code) => {
      if (poll) clearInterval(poll);
      const wallMs = performance.now() - t0;
      const text = tail.join('\n');
      const maxRss = /Maximum resident set size \(kbytes\): (\d+)/.exec(text);
      const peak = useTime ? (maxRss?.[1] ? Number(maxRss[1]) * 1024 : null) : hwm > 0 ? hwm : null;
      const ok = code === 0;
      done({
        ok,
        wallMs,
        peakRssBytes: peak,
        method: useTime
          ? 'GNU time -v, maximum resident set size of the generator process'
          : 'polling /proc/<pid>/status VmHWM every 200 ms',
        command,
        stdout,
        ...(ok ? {} : { error: errorLines(tail) }),
      });
    });
  });
}

/** The lines that say what went wrong (error messages first), without GNU time's report or the stack frames. */
function errorLines(tail: readonly string[]): string {
  const own = tail.filter((l) => !/^\t/.test(l) && !/^\s+at /.test(l) && !/^Command exited/.test(l));
  const errors = own.filter((l) => /Error|failed/.test(l));
  return (errors.length > 0 ? errors : own).slice(-8).join('\n');
}

/** The synthetic dataset of the scale run, built once and reused while its parameters match. */
export interface ScaleInputs {
  dataDir: string;
  offices: number;
  reused: boolean;
  synthMs: number | null;
}

/** The weeks of the scale dataset: the first is generated into an empty folder, the second beside it (the weekly run). */
export const SCALE_WEEKS = ['2026-W46', '2026-W47'] as const;

/** Synthesise `offices` nationwide offices (SCALE_WEEKS) into bench/out/data-<n>/weeks, unless a matching one is there. */
export async function ensureScaleInputs(
  outRoot: string,
  offices: number,
  onLine: (line: string) => void,
): Promise<ScaleInputs> {
  const dataDir = resolve(outRoot, `data-${label(offices)}`);
  const marker = join(dataDir, 'bench-synth.json');
  const params = JSON.stringify({ offices, nationwide: true, seed: 1, weeks: SCALE_WEEKS });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === params && existsSync(join(dataDir, 'metros.json'))) {
    return { dataDir, offices, reused: true, synthMs: null };
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  copyFileSync(join(REPO, 'data', 'metros.json'), join(dataDir, 'metros.json'));
  const cost = await measureProcess(
    'data/synth/cli.ts',
    ['--out', join(dataDir, 'weeks'), '--offices', String(offices), '--nationwide', '--weeks', SCALE_WEEKS.join(',')],
    onLine,
  );
  if (!cost.ok) throw new Error(`synthesis of ${offices} offices failed: ${cost.error ?? ''}`);
  writeFileSync(marker, params);
  return { dataDir, offices, reused: false, synthMs: cost.wallMs };
}

/** "1m", "250k", "9080". */
export function label(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}m`;
  if (n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/** Counts and sizes of one kind of cell-tree object (groups, blocks, record chunks) of a site. */
export interface ShardStats {
  kind: string;
  count: number;
  medianBytes: number;
  maxBytes: number;
  medianOffices: number;
  maxOffices: number;
  totalBytes: number;
}

/** Per-kind statistics of the cell tree of the current version of `siteDir`, and the size of the top index itself. */
export function cellStats(siteDir: string): { version: string; indexBytes: number; perRes: ShardStats[] } {
  const pointer = Pointer.parse(JSON.parse(readFileSync(join(siteDir, keys.pointer), 'utf8')));
  const v = pointer.version;
  const indexText = readFileSync(join(siteDir, keys.cellIndex(v)));
  const index = CellIndex.parse(JSON.parse(indexText.toString('utf8')));
  const rows: Record<string, { bytes: number; offices: number }[]> = {
    'group trees': [],
    'group shared lists': [],
    'blocks (columns)': [],
    'record chunks': [],
  };
  for (const cell of Object.keys(index.groups).sort()) {
    const key = keys.cellGroup(v, cell, index.schema_version);
    const group = CellGroup.parse(decodeStored(readFileSync(join(siteDir, key)), key));
    rows['group trees']?.push({ bytes: statSync(join(siteDir, key)).size, offices: group.rows.n[0] ?? 0 });
    // Schema 2 had no shared object (its lists were in the group).
    const shared = join(siteDir, keys.cellShared(v, cell, index.schema_version));
    if (existsSync(shared))
      rows['group shared lists']?.push({ bytes: statSync(shared).size, offices: group.rows.n[0] ?? 0 });
    for (const [i, block] of group.rows.cell.entries()) {
      if (group.rows.block[i] !== i) continue;
      const n = group.rows.n[i] ?? 0;
      rows['blocks (columns)']?.push({
        bytes: statSync(join(siteDir, keys.cellBlock(v, block))).size,
        offices: n,
      });
      for (let k = 0; k * index.record_chunk < n; k++) {
        rows['record chunks']?.push({
          bytes: statSync(join(siteDir, keys.cellRecords(v, block, k))).size,
          offices: Math.min(index.record_chunk, n - k * index.record_chunk),
        });
      }
    }
  }
  const perRes = Object.entries(rows)
    .filter(([, list]) => list.length > 0)
    .map(([kind, list]) => {
      const bytes = list.map((e) => e.bytes);
      const offices = list.map((e) => e.offices);
      return {
        kind,
        count: list.length,
        medianBytes: median(bytes),
        maxBytes: Math.max(...bytes),
        medianOffices: median(offices),
        maxOffices: Math.max(...offices),
        totalBytes: bytes.reduce((a, b) => a + b, 0),
      };
    });
  return { version: v, indexBytes: indexText.byteLength, perRes };
}

/** Warm latency of shim and naive at both sizes (each in a child process of its own), with the paired ratios large/small. */
export interface ScaleLatency {
  results: LatencyResult[];
  shimRatio: Map<number, Spread>;
  naiveRatio: Map<number, Spread>;
}

/** Cache budget of the scale latency targets, in MiB: the server's default CACHE_MIB, which the target says must serve the 1M site. */
export const SCALE_CACHE_MIB = DEFAULT_CACHE_MIB;

/**
 * Run bench/scale/scale-query.ts over `small` and `large`: the shim in one child, then the naive baseline in another
 * (heap raised for the large site), so the shim's collections never walk the naive baseline's million offices.
 */
export async function measureScaleLatency(
  small: string,
  large: string,
  runs: number,
  onLine: (line: string) => void,
): Promise<ScaleLatency> {
  void onLine;
  const results: LatencyResult[] = [];
  for (const kind of ['shim', 'naive'] as const) {
    const child = await startJsonChild<LatencyResult[]>(
      'bench/scale/scale-query.ts',
      [
        '--of',
        kind,
        '--small',
        small,
        '--large',
        large,
        '--runs',
        String(runs),
        '--cache-mib',
        String(SCALE_CACHE_MIB),
      ],
      { tag: `scale-query ${kind}`, nodeArgs: kind === 'naive' ? ['--max-old-space-size=12288'] : [] },
    );
    await child.stop();
    results.push(...child.first);
  }
  // By radius, then shim and naive of the sample, then of the large site: the order of the report's table.
  const rank = (t: string): number => ['shim small', 'naive small', 'shim large', 'naive large'].indexOf(t);
  results.sort((a, b) => a.radiusMiles - b.radiusMiles || rank(a.target) - rank(b.target));
  return {
    results,
    shimRatio: ratioOfP50(results, 'shim large', 'shim small'),
    naiveRatio: ratioOfP50(results, 'naive large', 'naive small'),
  };
}
