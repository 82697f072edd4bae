/** `npm run collect`: the weekly web-map measurement (see data/README.md, "The weekly collection"). */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { MetrosFile } from '../../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../../shim/contract/constants.ts';
import { GooglePlacesProvider } from './google-places.ts';
import { GRID_RESOLUTION, gridPoints } from './grid.ts';
import { isoWeekOf } from './iso-week.ts';
import { readOperatorFlags } from './operator-flags.ts';
import { MAX_PAGES } from './places-api.ts';
import { Budget, costUsd, TEXT_SEARCH_ENTERPRISE_USD_PER_1000 } from './pricing.ts';
import type { Provider } from './provider.ts';
import { RecordedProvider } from './recorded.ts';
import { runCollection } from './run.ts';
import { Throttle } from './throttle.ts';
import { cliOrExit, EXIT, printUsageError } from '../../shim/lib/cli-run.ts';

const SPEC = {
  name: 'collect',
  usage: 'npm run collect -- [options]',
  description: `Samples a web map on the weekly grid (H3 resolution ${GRID_RESOLUTION} cells over each metro's populated area) for the
five measured searches and writes <out>/weeks/<week>/{dataset.json,places.jsonl,samples.jsonl,flags.jsonl}.
Every answer is checkpointed in <out>/raw/<week>/answers.jsonl (gzipped to answers.jsonl.gz, the week's raw
archive, once the week is written): --resume continues a stopped run without buying any sample twice.`,
  options: {
    week: {
      type: 'week',
      description: "ISO week collected (default: the current week; with recorded, the archive's)",
    },
    metro: {
      type: 'string',
      multiple: true,
      arg: 'slug',
      description: 'a metro of <out>/metros.json; repeat for several (default: all)',
    },
    provider: {
      type: 'enum',
      values: ['google-places', 'recorded'],
      arg: 'name',
      description: 'google-places, or recorded (replay an archive, buys nothing)',
      default: 'google-places',
    },
    from: { type: 'string', arg: 'archive', description: 'the answers archive to replay (with --provider recorded)' },
    endpoint: {
      type: 'string',
      arg: 'url',
      description: 'provider base URL',
      default: 'https://places.googleapis.com',
    },
    out: {
      type: 'string',
      arg: 'dir',
      description: 'data folder: reads metros.json, writes weeks/ and raw/',
      default: 'data',
    },
    'budget-usd': {
      type: 'number',
      min: 0,
      description:
        "hard limit on the week's spend, checked before every request\n(default: the selected grid's estimated cost plus 10%)",
    },
    'price-per-1000': {
      type: 'number',
      min: 0,
      arg: 'usd',
      description: `price per 1,000 requests (default ${TEXT_SEARCH_ENTERPRISE_USD_PER_1000}, Text Search Enterprise)`,
    },
    pages: {
      type: 'integer',
      min: 1,
      max: MAX_PAGES,
      arg: `1-${MAX_PAGES}`,
      description: 'pages of 20 places per search (default 1: ranks 1-20)',
    },
    concurrency: { type: 'integer', min: 1, max: 64, description: 'requests in flight at most', default: 4 },
    rps: { type: 'number', min: 0, max: 1000, description: 'requests started per second at most, above 0', default: 5 },
    'timeout-ms': { type: 'integer', min: 1, description: 'per-request timeout', default: 30_000 },
    'max-attempts': {
      type: 'integer',
      min: 1,
      max: 20,
      description: 'attempts per request on 429, 5xx and timeouts',
      default: 6,
    },
    'retry-base-ms': {
      type: 'integer',
      min: 0,
      description: 'first backoff bound, doubled per attempt, full jitter',
      default: 1000,
    },
    flags: {
      type: 'string',
      arg: 'file',
      description:
        'operator flags: firm lines and {"place_id","claimed"} lines (default <out>/operator-flags.jsonl if present)',
    },
    'collected-at': {
      type: 'string',
      arg: 'iso',
      description: "dataset.json collected_at (default: when the week's first run started)",
    },
    resume: { type: 'boolean', description: "continue the week's stopped run" },
    'dry-run': { type: 'boolean', description: 'print grid points, requests and estimated cost; spend nothing' },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  epilogue: 'Environment: GOOGLE_PLACES_API_KEY (required by google-places; never logged or archived).',
  exits: {
    [EXIT.ok]: 'week written',
    [EXIT.failure]: 'failure (samples left; rerun with --resume)',
    3: 'budget reached',
  },
} as const;

function usage(message: string): never {
  process.exit(printUsageError(SPEC, message));
}

const { values } = cliOrExit(SPEC);
const outDir = resolve(values.out);
const providerName = values.provider;
if (providerName === 'recorded' && values.from === undefined) usage('--provider recorded needs --from <archive>');
if (values['collected-at'] !== undefined && !z.iso.datetime().safeParse(values['collected-at']).success)
  usage(`--collected-at must be an ISO 8601 UTC date-time like 2026-11-18T14:00:00Z, got "${values['collected-at']}"`);
const pages = values.pages ?? 1;
const per1000 = values['price-per-1000'] ?? TEXT_SEARCH_ENTERPRISE_USD_PER_1000;
const { concurrency, rps } = values;
if (rps === 0) usage('--rps must be a number in (0, 1000], got "0"');
const timeoutMs = values['timeout-ms'];
const maxAttempts = values['max-attempts'];
const retryBaseMs = values['retry-base-ms'];

const metrosPath = join(outDir, 'metros.json');
if (!existsSync(metrosPath)) usage(`no metros.json in ${outDir} (--out is the data folder)`);
const allMetros = MetrosFile.parse(JSON.parse(readFileSync(metrosPath, 'utf8'))).metros;
const bySlug = new Map(allMetros.map((m) => [m.slug, m]));
for (const s of values.metro)
  if (!bySlug.has(s))
    usage(`--metro "${s}" is not in ${metrosPath}; known: ${allMetros.map((m) => m.slug).join(', ')}`);
const wanted = new Set(values.metro.length > 0 ? values.metro : allMetros.map((m) => m.slug));
const metros = allMetros.filter((m) => wanted.has(m.slug));

if (values['dry-run']) {
  const points = gridPoints(metros);
  const perMetro = new Map<string, number>();
  for (const p of points) perMetro.set(p.metro, (perMetro.get(p.metro) ?? 0) + 1);
  const lines = metros.map((m) => {
    const n = perMetro.get(m.slug) ?? 0;
    const req = n * MEASURED_QUERIES.length * pages;
    return `${m.slug.padEnd(20)} ${String(n).padStart(6)} ${String(req).padStart(9)} ${`$${costUsd(req, per1000).toFixed(2)}`.padStart(11)}`;
  });
  const requests = points.length * MEASURED_QUERIES.length * pages;
  process.stdout.write(
    `${'metro'.padEnd(20)} ${'points'.padStart(6)} ${'requests'.padStart(9)} ${'cost'.padStart(11)}\n${lines.join('\n')}\n` +
      `${'total'.padEnd(20)} ${String(points.length).padStart(6)} ${String(requests).padStart(9)} ${`$${costUsd(requests, per1000).toFixed(2)}`.padStart(11)}\n\n` +
      `${metros.length} metros x ${MEASURED_QUERIES.length} searches (${MEASURED_QUERIES.join(', ')}) x ${pages} page(s) of 20 at $${per1000} per 1,000 requests` +
      `${pages > 1 ? ' (an upper bound: a search stops paging when the provider has no more places)' : ''}. Nothing was bought.\n`,
  );
  process.exit(0);
}

// The progress reporter exists once the run starts; retries are reported through it.
const bridge = { note: (message: string): void => void message, retried: (): void => {} };
let provider: Provider;
let budget: Budget | null = null;
let week: string;
let collectedAt = values['collected-at'] ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
if (providerName === 'recorded') {
  const recorded = new RecordedProvider(resolve(values.from as string));
  provider = recorded;
  week = values.week ?? recorded.header.week;
  collectedAt = values['collected-at'] ?? recorded.header.collected_at;
} else {
  const apiKey = process.env.GOOGLE_PLACES_API_KEY ?? '';
  if (apiKey === '') usage('GOOGLE_PLACES_API_KEY is not set');
  // Without --budget-usd the limit is what the selected grid should cost, plus 10% for retried timeouts.
  const estimate = costUsd(gridPoints(metros).length * MEASURED_QUERIES.length * pages, per1000);
  const limit = values['budget-usd'] ?? Math.ceil(estimate * 110) / 100;
  budget = new Budget(limit, per1000);
  if (!values.quiet)
    process.stderr.write(
      `collect: budget $${limit.toFixed(2)}${values['budget-usd'] === undefined ? ' (default: the estimate plus 10%)' : ''}; a full run of the selected grid costs about $${estimate.toFixed(2)}\n`,
    );
  week = values.week ?? isoWeekOf(new Date());
  const throttle = new Throttle(rps);
  provider = new GooglePlacesProvider({
    endpoint: values.endpoint,
    apiKey,
    pages,
    budget,
    timeoutMs,
    maxAttempts,
    backoff: { baseMs: retryBaseMs, capMs: 60_000 },
    throttle: () => throttle.wait(),
    onRetry: (reason, waitMs) => {
      bridge.retried();
      bridge.note(`collect: retry in ${waitMs} ms: ${reason}`);
    },
  });
}

const flagsPath =
  values.flags !== undefined
    ? resolve(values.flags)
    : existsSync(join(outDir, 'operator-flags.jsonl'))
      ? join(outDir, 'operator-flags.jsonl')
      : null;
const started = Date.now();
try {
  const b = budget;
  const result = await runCollection({
    outDir,
    week,
    metros,
    provider,
    spentUsd: () => b?.spentUsd ?? 0,
    resume: values.resume,
    collectedAt,
    concurrency,
    flags: readOperatorFlags(flagsPath),
    quiet: values.quiet,
    onLogOpen: (requests) => b?.addSpent(requests),
    onProgress: (progress, state) => {
      bridge.note = (m) => progress.note(m);
      bridge.retried = () => void state.retries++;
    },
  });
  const spent =
    b === null
      ? 'nothing (replay)'
      : `$${b.spentUsd.toFixed(2)} of $${b.limitUsd.toFixed(2)} (${b.requests} requests, ${result.boughtThisRun} samples bought by this run)`;
  const lines = [
    `collect: ${week}, ${metros.length} metro(s): ${result.done} of ${result.total} samples; spent ${spent}; ${result.errors} errors; ${Math.round((Date.now() - started) / 1000)} s`,
  ];
  if (result.week) {
    const w = result.week;
    const skipped = Object.entries(w.skipped)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    lines.push(
      `collect: ${w.places.length} offices, ${w.samples.length} sample lines, ${w.flags.length} firm flags${skipped === '' ? '' : `; places without a record: ${skipped}`}`,
    );
    if (result.archive !== undefined)
      lines.push(
        `collect: raw answers archived in ${result.archive} (operator-side, never publish; delete after 30 days)`,
      );
  }
  lines.push(`collect: ${result.message}`);
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(result.status === 'complete' ? EXIT.ok : result.status === 'budget' ? 3 : EXIT.failure);
} catch (err) {
  process.stderr.write(`collect: ${(err as Error).message}\n`);
  process.exit(EXIT.failure);
}
