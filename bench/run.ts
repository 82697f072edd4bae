/** `npm run bench [-- options]`: every benchmark side by side in one run, written to BENCHMARKS.md. Progress on stderr. */
import { makeGeneratedLive } from './lib/generated-live.ts';
import { generateSampleSite } from './scale/sample-site.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cliOrExit, EXIT, printUsageError } from '../shim/lib/cli-run.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { keys, Meta, Pointer } from '../shim/format/site-format.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { REPO } from './lib/child.ts';
import { measureColdReads, measureFirstAnswer, type ColdReads } from './cold/cold.ts';
import type { ColdBefore } from './report.ts';
import { measureColdReadsS3, type ColdS3Report } from './cold/cold-s3.ts';
import { measureHttp } from './latency/http.ts';
import { measureLambda } from './size/lambda.ts';
import { loadNow, machineInfo } from './lib/machine.ts';
import { NaiveIndex, naiveService } from './lib/naive.ts';
import { densePoints, JITTER_MILES, RADII } from './lib/points.ts';
import { measureLatency, ratioOfP50 } from './lib/query.ts';
import { DISTINCT_NAIVE, DISTINCT_SHIM, renderReport, type BenchResults, type ScaleAttempt } from './report.ts';
import {
  ensureScaleInputs,
  label,
  measureProcess,
  measureScaleLatency,
  cellStats,
  SCALE_WEEKS,
  generatorNodeArgs,
} from './scale/scale.ts';
import { measurePageWeights } from './size/pages.ts';
import { measurePostgis, scaleSiteFor } from './peers/postgis.ts';
import { measureTreeSweep, TREE_SWEEP } from './cold/tree-sweep.ts';
import { measureWorkload } from './workload/workload.ts';
import { progress } from './lib/stats.ts';
import { measureHotpathSection } from './latency/hotpath-section.ts';
import { measurePipeline } from './latency/pipeline.ts';
import { measureMcp } from './latency/mcp.ts';
import { updateReport } from './lib/update-report.ts';
import { runCorrectionSection } from './correction/correction-section.ts';

const SECTION_NAMES = [
  'latency',
  'http',
  'cold',
  'scale',
  'lambda',
  'pages',
  'correction',
  'postgis',
  'workload',
  'hotpath',
  'trees',
  'pipeline',
  'mcp',
] as const;
type SectionName = (typeof SECTION_NAMES)[number];

const SPEC = {
  name: 'bench',
  usage: 'npm run bench -- [options]',
  description: `Measures, side by side in one run, and writes BENCHMARKS.md (a --quick or --only run writes bench/out/BENCHMARKS.partial.md):
  1. warm in-process query latency (p50/p99) of the shim and of a naive full-scan baseline, dense metros, 1/15/50 miles
  2. HTTP throughput on loopback (autocannon): the real server, the same server answering a precomputed body (ceiling),
     and the naive baseline behind the same server code
  3. cold path: store objects and bytes per query with an empty cache, from the folder and over S3 (the site published
     with gzip to s3rver on loopback: decoded and wire bytes, cold latency); a fresh process's time to its first answer
  4. scale: a synthetic nationwide dataset (default 1,000,000 offices): generator time and peak memory, shard sizes,
     latency against the sample as a ratio (naive beside it)
  5. the Lambda bundle: size raw and gzipped, import time in a fresh process
  6. page weight: each page for people with the CSS, JS and SVG it loads, raw, gzip and brotli
  7. correction publish: a one-listing correction published to s3rver over its week (objects, bytes, copies, seconds
     to the pointer flip), on the sample and on the --scale-offices site, the complete weekly publish beside it
  8. PostGIS peer (when PostgreSQL + PostGIS are installed, or with --install-postgis): the sample and scale offices in a
     throwaway cluster, answers checked against the shim, warm p50/p99 of both side by side, load and index time
  9. workload: searches drawn by population over ZIPs and cities; the edge hit ratio for a TTL and rate; cost per million
 10. hot path: /v1/attorneys with the answer cache, without it, and a bare node:http server sending the same bytes;
     the Lambda bundle's cold start over s3rver (import, first answer)
 11. cell-tree parameters: the scale site's cell tree rebuilt with other leaf, block and record-chunk sizes, the cold
     query sets of 3 replayed on each (objects and bytes against each other)
 12. request pipeline: the /v1/attorneys miss path (a new point every request) and /v1/coverage through the real
     server, against a bare node:http server and a Hono app sending the same bytes (server CPU per answer)
 13. MCP against REST: a tools/call search (2025-11-25 and 2026-07-28) against the same REST search, a new point
     every request (server CPU per answer)
Figures are medians of several runs with min–max; ratios are paired within a run. Progress goes to stderr.`,
  options: {
    quick: {
      type: 'boolean',
      description: 'small and short (smoke test): 1 run, 2 s HTTP at 15 miles, 20,000 offices at scale',
    },
    'skip-scale': { type: 'boolean', description: 'leave out section 4 (the slow part)' },
    site: {
      type: 'string',
      arg: 'dir',
      description: 'measure this generated site as the sample instead of generating bench/out/site-sample',
    },
    'skip-http': { type: 'boolean', description: 'leave out section 2' },
    'skip-lambda': { type: 'boolean', description: 'leave out section 5' },
    'skip-s3': { type: 'boolean', description: 'leave out the S3 part of section 3' },
    'cold-before': {
      type: 'string',
      arg: 'file',
      description:
        "results of an earlier run's section 3 (its results.json), shown beside this run's rounds, objects\nand bytes per query set (before and after a change to the cold path)",
    },
    'skip-postgis': { type: 'boolean', description: 'leave out section 8' },
    'install-postgis': {
      type: 'boolean',
      description: 'apt-get install PostgreSQL + PostGIS when missing (root); without it a missing server skips 8',
    },
    only: {
      type: 'enum',
      values: SECTION_NAMES,
      split: ',',
      arg: 'list',
      description: `run only these sections, comma-separated: ${SECTION_NAMES.join(',')}\n(e.g. --only cold)`,
    },
    runs: { type: 'integer', min: 1, description: 'repetitions of each measurement (default 3; --quick 1)' },
    duration: { type: 'integer', min: 1, arg: 's', description: 'seconds per autocannon run (default 5; --quick 2)' },
    connections: { type: 'integer', min: 1, description: 'autocannon connections', default: 10 },
    'scale-offices': {
      type: 'integer',
      min: 1,
      description: 'offices of the scale dataset (default 1000000; --quick 20000)',
    },
    'scale-fallback': {
      type: 'integer',
      min: 0,
      description: 'size to try when the generator fails at --scale-offices (default 250000; 0 for none)',
    },
    out: {
      type: 'string',
      arg: 'file',
      description: 'report file (default BENCHMARKS.md; with --quick or --only, bench/out/BENCHMARKS.partial.md)',
    },
    update: {
      type: 'boolean',
      description:
        "with --only: also rewrite, in BENCHMARKS.md, just the sections this run measured (and their\nrows of the Targets table), keeping every other section as it is; the report's head names the run",
    },
  },
  epilogue: `Outputs: the report, bench/out/results.json (raw figures; results.partial.json for --quick or --only),
bench/out/ (sites, data; gitignored).`,
  exits: { [EXIT.ok]: 'report written', [EXIT.failure]: 'a measurement failed' },
} as const;

const { values: args } = cliOrExit(SPEC);
const quick = args.quick;
const only = args.only.length === 0 ? null : new Set<SectionName>(args.only);
if (args.update && (only === null || args.quick))
  process.exit(
    printUsageError(SPEC, '--update needs --only (and not --quick): it replaces the sections a partial run measured'),
  );
const skipFlag: Record<SectionName, boolean> = {
  latency: false,
  http: args['skip-http'],
  cold: false,
  scale: args['skip-scale'],
  lambda: args['skip-lambda'],
  pages: false,
  correction: false,
  postgis: args['skip-postgis'],
  workload: false,
  hotpath: false,
  trees: false,
  pipeline: false,
  mcp: false,
};
/** Whether this run measures `section`. */
const wants = (section: SectionName): boolean => !skipFlag[section] && (only === null || only.has(section));
// Quick or partial figures must never overwrite the full report.
const partial = quick || only !== null;
const runs = args.runs ?? (quick ? 1 : 3);
const durationSec = args.duration ?? (quick ? 2 : 5);
const connections = args.connections;
const scaleOffices = args['scale-offices'] ?? (quick ? 20_000 : 1_000_000);
const scaleFallback = args['scale-fallback'] ?? (quick ? 0 : 250_000);
const outRoot = join(REPO, 'bench', 'out');
const argv = process.argv.slice(2);
const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;

const started = performance.now();
const machine = machineInfo();
mkdirSync(outRoot, { recursive: true });
progress(
  `${machine.cpuModel} x${machine.cores}, node ${machine.node}, load ${machine.loadStart.toFixed(1)}; ${command}`,
);

// The sample site: generated by this run (so its version matches the code), unless --quick finds one already there
// or --site names one.
const dataDir = join(REPO, 'data');
const sampleDir = args.site !== undefined ? resolve(args.site) : join(outRoot, 'site-sample');
if (args.site === undefined && !existsSync(join(dataDir, 'weeks'))) {
  progress('data/weeks is missing: synthesising the sample inputs');
  const { synthesize } = await import('../data/synth/synthesize.ts');
  await synthesize({ outDir: join(dataDir, 'weeks') });
}
let sampleGenerate = null;
if (args.site === undefined && (!quick || !existsSync(join(sampleDir, keys.pointer)))) {
  sampleGenerate = await generateSampleSite(dataDir, sampleDir, progress);
}
const pointer = Pointer.parse(JSON.parse(readFileSync(join(sampleDir, keys.pointer), 'utf8')));
const meta = Meta.parse(JSON.parse(readFileSync(join(sampleDir, keys.meta(pointer.version)), 'utf8')));
const sampleShards = cellStats(sampleDir);
const sampleOffices = (): number => meta.totals.offices;

const results: BenchResults = {
  machine,
  command,
  startedAt: new Date().toISOString(),
  durationMs: 0,
  quick,
  sample: {
    siteDir: relative(REPO, sampleDir),
    version: pointer.version,
    offices: meta.totals.offices,
    generate: sampleGenerate,
    shards: sampleShards,
  },
};

// 1. Warm in-process latency, shim and naive interleaved.
if (wants('latency')) {
  progress('1. warm in-process latency');
  const source = createSiteSource(new FolderStore(sampleDir));
  const naiveSource = createSiteSource(new FolderStore(sampleDir));
  const index = await NaiveIndex.load(new FolderStore(sampleDir));
  const points = densePoints();
  const shim = createService(source);
  const naive = naiveService(index, naiveSource);
  const latency = await measureLatency(
    [
      { name: 'shim', service: shim, storeReads: () => source.stats().storeReads },
      { name: 'naive', service: naive },
      { name: DISTINCT_SHIM, service: shim, storeReads: () => source.stats().storeReads, jitterMiles: JITTER_MILES },
      { name: DISTINCT_NAIVE, service: naive, jitterMiles: JITTER_MILES },
    ],
    { points, radii: RADII, runs, passes: quick ? 5 : 20, maxMsPerCell: quick ? 1000 : 4000, onProgress: progress },
  );
  results.latency = {
    results: latency,
    naiveOverShim: ratioOfP50(latency, 'naive', 'shim'),
    naiveOverShimDistinct: ratioOfP50(latency, DISTINCT_NAIVE, DISTINCT_SHIM),
    jitterMiles: JITTER_MILES,
    runs,
    points: points.length,
  };
}

// 2. HTTP throughput.
if (wants('http')) {
  progress('2. HTTP throughput');
  results.http = await measureHttp({
    site: sampleDir,
    radii: quick ? [15] : RADII,
    runs,
    durationSec,
    connections,
    jitterMiles: JITTER_MILES,
    onProgress: progress,
  });
}

/** Section 3 of an earlier run's results file (--cold-before), to show beside this run's; null without one. */
function coldBefore(file: string | undefined): ColdBefore | null {
  if (file === undefined) return null;
  const earlier = JSON.parse(readFileSync(file, 'utf8')) as {
    commit?: string;
    machine?: { commit?: string };
    cold?: { reads?: ColdReads[]; large?: { reads?: ColdReads[] } | null };
  };
  return {
    commit: (earlier.commit ?? earlier.machine?.commit ?? 'unknown').slice(0, 10),
    file: relative(REPO, resolve(file)),
    reads: earlier.cold?.reads ?? [],
    large: earlier.cold?.large?.reads ?? [],
  };
}

// 3. Cold path.
if (wants('cold')) {
  progress('3. cold path: objects and bytes per query with an empty cache');
  const reads = await measureColdReads(sampleDir, RADII);
  for (const r of reads)
    progress(
      `  ${r.label}: objects median ${r.objects.median} max ${r.objects.max}, bytes median ${r.bytes.median} max ${r.bytes.max}`,
    );
  let s3: ColdS3Report | null = null;
  let s3Error: string | undefined;
  if (!args['skip-s3']) {
    progress(
      '  over S3: publishing the sample site to s3rver on loopback (gzip on), then the same queries through S3Store',
    );
    try {
      s3 = await measureColdReadsS3(sampleDir, RADII, { passes: runs, onProgress: progress });
      for (const r of s3.sets) {
        progress(
          `  S3 ${r.label}: objects max ${r.objects.max}, decoded median ${r.bytes.median} max ${r.bytes.max}, wire median ${r.wireBytes.median} max ${r.wireBytes.max}, latency median ${r.latencyMs.median.toFixed(1)} ms p99 ${r.latencyMs.p99.toFixed(1)} ms`,
        );
      }
    } catch (err) {
      s3Error = (err as Error).message;
      progress(`  S3 cold path failed: ${s3Error}`);
    }
  }
  // At national scale too, when section 4 does not run (it measures its own) and an earlier run left the large site.
  let large: { offices: number; origin: string; reads: ColdReads[]; s3: ColdS3Report | null } | null = null;
  const largeDir = join(outRoot, `site-${label(scaleOffices)}`);
  if (!wants('scale') && existsSync(join(largeDir, keys.pointer))) {
    progress(`  cold path on ${largeDir}, generated by an earlier run`);
    const version = Pointer.parse(JSON.parse(readFileSync(join(largeDir, keys.pointer), 'utf8'))).version;
    const offices = Meta.parse(JSON.parse(readFileSync(join(largeDir, keys.meta(version)), 'utf8'))).totals.offices;
    large = {
      offices,
      origin: 'generated by an earlier run of the benchmark and reused',
      reads: await measureColdReads(largeDir, RADII),
      s3: args['skip-s3']
        ? null
        : await measureColdReadsS3(largeDir, RADII, { passes: runs, onProgress: progress, readSetOnly: true }),
    };
  }
  let first = null;
  let firstError: string | undefined;
  try {
    first = await measureFirstAnswer(sampleDir, quick ? 2 : 5, progress);
  } catch (err) {
    firstError = (err as Error).message;
    progress(`  fresh-process measurement failed: ${firstError}`);
  }
  results.cold = {
    reads,
    first,
    ...(firstError !== undefined ? { firstError } : {}),
    s3,
    ...(s3Error !== undefined ? { s3Error } : {}),
    large,
    before: coldBefore(args['cold-before']),
  };
}

// 4. Scale.
let scaleSiteDir: string | null = null;
if (wants('scale')) {
  progress(`4. scale: ${scaleOffices} offices`);
  const sizes = [scaleOffices, ...(scaleFallback > 0 && scaleFallback < scaleOffices ? [scaleFallback] : [])];
  const attempts: ScaleAttempt[] = [];
  let largeDir: string | null = null;
  let measured: number | null = null;
  for (const offices of sizes) {
    const inputs = await ensureScaleInputs(outRoot, offices, (l) => progress(`  [synth ${label(offices)}] ${l}`));
    const siteDir = join(outRoot, `site-${label(offices)}`);
    // The first week into an empty folder (everything written), then the next week beside it as the weekly run does
    // (unchanged objects linked to the previous week's files, the changes diffed against it).
    if (existsSync(siteDir)) progress(`  removing the earlier run's ${siteDir} (a million files: minutes)`);
    rmSync(siteDir, { recursive: true, force: true });
    const [first, next] = SCALE_WEEKS;
    // Each run's own progress lines (elapsed time, memory, step), kept for the report: they say where the time went.
    const logs: [string[], string[]] = [[], []];
    const run = async (week: string, log: string[]) => {
      // Dirty pages of earlier work (the folder just removed, the week before) are flushed first, so the run is not
      // charged for them: a million small files make the write-back the slowest part of a run otherwise.
      execFileSync('sync');
      progress(`  generating ${offices} offices, week ${week}, into ${siteDir}`);
      const cost = await measureProcess(
        'generator/cli.ts',
        ['--data', inputs.dataDir, '--out', siteDir, '--week', week],
        (l) => {
          if (l.startsWith('generate [')) log.push(l.replaceAll(resolve(REPO), '.'));
          progress(`  [generate ${label(offices)} ${week}] ${l}`);
        },
        generatorNodeArgs(),
      );
      // The next week compares with this one, as the weekly release does: make it the folder's live version.
      if (cost.ok) await makeGeneratedLive(siteDir, cost.stdout);
      return cost;
    };
    const generate = await run(first, logs[0]);
    const nextWeek = generate.ok ? await run(next, logs[1]) : null;
    attempts.push({
      offices,
      inputsReused: inputs.reused,
      synthMs: inputs.synthMs,
      weeks: [first, next],
      generate,
      next: nextWeek,
      logs,
    });
    if (generate.ok && nextWeek?.ok === true) {
      largeDir = siteDir;
      measured = offices;
      break;
    }
    progress(`  the generator failed at ${offices} offices: ${(generate.ok ? nextWeek?.error : generate.error) ?? ''}`);
  }
  results.scale = { requested: scaleOffices, attempts, measured, shards: null, latency: null, cold: null };
  if (largeDir !== null) {
    results.scale.shards = cellStats(largeDir);
    progress('  latency at scale against the sample (child process)');
    results.scale.latency = await measureScaleLatency(sampleDir, largeDir, runs, progress);
    progress('  cold path at scale');
    results.scale.cold = await measureColdReads(largeDir, RADII);
    if (!args['skip-s3']) {
      progress('  cold path at scale over S3, on the objects the query sets read');
      results.scale.coldS3 = await measureColdReadsS3(largeDir, RADII, {
        passes: runs,
        onProgress: progress,
        readSetOnly: true,
      });
    }
  }
  scaleSiteDir = largeDir;
}

// 8. PostGIS peer, over the sample and the scale site (section 4's, an earlier run's, or generated now).
if (wants('postgis')) {
  progress('8. PostGIS peer');
  const largeSite = await scaleSiteFor(outRoot, results.scale?.measured ?? scaleOffices, scaleSiteDir, progress);
  results.postgis = await measurePostgis({
    sites: [
      { label: label(meta.totals.offices), dir: sampleDir, origin: 'generated by this run' },
      ...(largeSite === null ? [] : [largeSite]),
    ],
    outRoot,
    install: args['install-postgis'],
    runs,
    onProgress: progress,
  });
}

// 11. Cell-tree parameters, over the scale site (section 4's, an earlier run's, or generated now).
if (wants('trees')) {
  progress('11. cell-tree parameters at scale');
  const largeSite = await scaleSiteFor(outRoot, results.scale?.measured ?? scaleOffices, scaleSiteDir, progress);
  if (largeSite !== null) results.trees = await measureTreeSweep(largeSite.dir, outRoot, TREE_SWEEP, progress);
}

// 5. Lambda bundle.
if (wants('lambda')) {
  progress('5. Lambda bundle');
  results.lambda = await measureLambda(join(outRoot, 'lambda'), quick ? 2 : 5, progress);
}

// 6. Page weight.
if (wants('pages')) {
  progress('6. page weight');
  results.pages = measurePageWeights(sampleDir);
}

// 7. Correction publish.
if (wants('correction')) {
  progress('7. correction publish');
  results.correction = await runCorrectionSection({
    outRoot,
    dataDir,
    sampleDir,
    offices: sampleOffices(),
    scaleOffices: args['skip-scale'] ? null : scaleOffices,
    onLine: progress,
  });
}

// 9. Workload model: edge hit ratio and cost per million searches.
if (wants('workload')) {
  progress('9. workload model');
  results.workload = await measureWorkload(sampleDir, progress);
}

// 10. Hot path.
if (wants('hotpath')) {
  progress('10. hot path: answer cache, Lambda cold start');
  results.hotpath = await measureHotpathSection({
    site: sampleDir,
    radii: quick ? [15] : RADII,
    runs,
    durationSec,
    connections,
    jitterMiles: JITTER_MILES,
    lambdaDir: join(outRoot, 'lambda-cold'),
    onProgress: progress,
  });
}

// 12. Request pipeline against bare node:http.
if (wants('pipeline')) {
  progress('12. request pipeline: miss path and /v1/coverage against bare node:http and Hono');
  try {
    results.pipeline = await measurePipeline({ site: sampleDir, runs, durationSec, connections, onProgress: progress });
  } catch (err) {
    progress(`  pipeline failed: ${(err as Error).message}`);
  }
}

// 13. MCP tools/call against the same REST search.
if (wants('mcp')) {
  progress('13. MCP tools/call search against the same REST search');
  try {
    results.mcp = await measureMcp({ site: sampleDir, runs, durationSec, connections, onProgress: progress });
  } catch (err) {
    progress(`  mcp failed: ${(err as Error).message}`);
  }
}

results.durationMs = performance.now() - started;
results.machine.loadEnd = loadNow();
const outFile = resolve(REPO, args.out ?? (partial ? 'bench/out/BENCHMARKS.partial.md' : 'BENCHMARKS.md'));
const resultsFile = join(outRoot, partial ? 'results.partial.json' : 'results.json');
writeFileSync(outFile, renderReport(results));
writeFileSync(
  resultsFile,
  `${JSON.stringify(results, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2)}\n`,
);
progress(`wrote ${outFile} and ${resultsFile} in ${(results.durationMs / 1000).toFixed(0)} s`);
if (args.update) {
  const reportFile = join(REPO, 'BENCHMARKS.md');
  const when = `${results.startedAt}, commit ${results.machine.commit.slice(0, 10)}, load ${results.machine.loadStart.toFixed(1)}`;
  const updated = updateReport(readFileSync(reportFile, 'utf8'), renderReport(results), command, when);
  writeFileSync(reportFile, updated.report);
  progress(`updated ${reportFile}: ${updated.sections.join(', ') || 'no measured section'}`);
}
