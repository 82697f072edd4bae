/** `npm run collect`: the weekly web-map measurement (see data/README.md, "The weekly collection"). */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { MetrosFile } from '../../generator/inputs/schema.ts';
import { MEASURED_QUERIES } from '../../shim/core/constants.ts';
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

const HELP = `Usage: npm run collect -- [options]

Samples a web map on the weekly grid (H3 resolution ${GRID_RESOLUTION} cells over each metro's populated area) for the
five measured searches and writes <out>/weeks/<week>/{dataset.json,places.jsonl,samples.jsonl,flags.jsonl}.
Every answer is checkpointed in <out>/raw/<week>/answers.jsonl (gzipped to answers.jsonl.gz, the week's raw
archive, once the week is written): --resume continues a stopped run without buying any sample twice.

Options:
  --week <YYYY-Www>        ISO week collected (default: the current week; with recorded, the archive's)
  --metro <slug>           a metro of <out>/metros.json; repeat for several (default: all)
  --provider <name>        google-places (default) or recorded (replay an archive, buys nothing)
  --from <archive>         the answers archive to replay (with --provider recorded)
  --endpoint <url>         provider base URL (default https://places.googleapis.com)
  --out <dir>              data folder: reads metros.json, writes weeks/ and raw/ (default data)
  --budget-usd <n>         hard limit on the week's spend, checked before every request
                           (default: the selected grid's estimated cost plus 10%)
  --price-per-1000 <usd>   price per 1,000 requests (default ${TEXT_SEARCH_ENTERPRISE_USD_PER_1000}, Text Search Enterprise)
  --pages <1-${MAX_PAGES}>            pages of 20 places per search (default 1: ranks 1-20)
  --concurrency <n>        requests in flight at most (default 4)
  --rps <n>                requests started per second at most (default 5)
  --timeout-ms <n>         per-request timeout (default 30000)
  --max-attempts <n>       attempts per request on 429, 5xx and timeouts (default 6)
  --retry-base-ms <n>      first backoff bound, doubled per attempt, full jitter (default 1000)
  --flags <file>           operator flags: firm lines and {"place_id","claimed"} lines (default <out>/operator-flags.jsonl if present)
  --collected-at <iso>     dataset.json collected_at (default: when the week's first run started)
  --resume                 continue the week's stopped run
  --dry-run                print grid points, requests and estimated cost; spend nothing
  --quiet                  no progress on stderr
  -h, --help               this text

Environment: GOOGLE_PLACES_API_KEY (required by google-places; never logged or archived).
Exit status: 0 week written, 1 failure (samples left; rerun with --resume), 2 usage error, 3 budget reached.`;

function usage(message: string): never {
  process.stderr.write(`collect: ${message}\n\n${HELP}\n`);
  process.exit(2);
}

function num(name: string, value: string | undefined, fallback: number, check: (n: number) => boolean, what: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n)) usage(`--${name} must be ${what}, got "${value}"`);
  return n;
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      week: { type: 'string' },
      metro: { type: 'string', multiple: true },
      provider: { type: 'string' },
      from: { type: 'string' },
      endpoint: { type: 'string' },
      out: { type: 'string' },
      'budget-usd': { type: 'string' },
      'price-per-1000': { type: 'string' },
      pages: { type: 'string' },
      concurrency: { type: 'string' },
      rps: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'max-attempts': { type: 'string' },
      'retry-base-ms': { type: 'string' },
      flags: { type: 'string' },
      'collected-at': { type: 'string' },
      resume: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (err) {
  usage((err as Error).message);
}
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const outDir = resolve(values.out ?? 'data');
const providerName = values.provider ?? 'google-places';
if (providerName !== 'google-places' && providerName !== 'recorded') usage(`--provider must be google-places or recorded, got "${providerName}"`);
if (providerName === 'recorded' && values.from === undefined) usage('--provider recorded needs --from <archive>');
if (values.week !== undefined && !/^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$/.test(values.week)) usage(`--week must be an ISO week like 2026-W47, got "${values.week}"`);
if (values['collected-at'] !== undefined && !z.iso.datetime().safeParse(values['collected-at']).success) usage(`--collected-at must be an ISO 8601 UTC date-time like 2026-11-18T14:00:00Z, got "${values['collected-at']}"`);
const pages = num('pages', values.pages, 1, (n) => Number.isInteger(n) && n >= 1 && n <= MAX_PAGES, `an integer 1-${MAX_PAGES}`);
const per1000 = num('price-per-1000', values['price-per-1000'], TEXT_SEARCH_ENTERPRISE_USD_PER_1000, (n) => n >= 0, 'a non-negative number');
const concurrency = num('concurrency', values.concurrency, 4, (n) => Number.isInteger(n) && n >= 1 && n <= 64, 'an integer 1-64');
const rps = num('rps', values.rps, 5, (n) => n > 0 && n <= 1000, 'a number in (0, 1000]');
const timeoutMs = num('timeout-ms', values['timeout-ms'], 30_000, (n) => Number.isInteger(n) && n >= 1, 'a positive integer');
const maxAttempts = num('max-attempts', values['max-attempts'], 6, (n) => Number.isInteger(n) && n >= 1 && n <= 20, 'an integer 1-20');
const retryBaseMs = num('retry-base-ms', values['retry-base-ms'], 1000, (n) => Number.isInteger(n) && n >= 0, 'a non-negative integer');

const metrosPath = join(outDir, 'metros.json');
if (!existsSync(metrosPath)) usage(`no metros.json in ${outDir} (--out is the data folder)`);
const allMetros = MetrosFile.parse(JSON.parse(readFileSync(metrosPath, 'utf8'))).metros;
const bySlug = new Map(allMetros.map((m) => [m.slug, m]));
for (const s of values.metro ?? []) if (!bySlug.has(s)) usage(`--metro "${s}" is not in ${metrosPath}; known: ${allMetros.map((m) => m.slug).join(', ')}`);
const wanted = new Set(values.metro ?? allMetros.map((m) => m.slug));
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
  const limit = num('budget-usd', values['budget-usd'], Math.ceil(estimate * 110) / 100, (n) => n >= 0, 'a non-negative number');
  budget = new Budget(limit, per1000);
  if (!values.quiet) process.stderr.write(`collect: budget $${limit.toFixed(2)}${values['budget-usd'] === undefined ? ' (default: the estimate plus 10%)' : ''}; a full run of the selected grid costs about $${estimate.toFixed(2)}\n`);
  week = values.week ?? isoWeekOf(new Date());
  const throttle = new Throttle(rps);
  provider = new GooglePlacesProvider({
    endpoint: values.endpoint ?? 'https://places.googleapis.com',
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

const flagsPath = values.flags !== undefined ? resolve(values.flags) : existsSync(join(outDir, 'operator-flags.jsonl')) ? join(outDir, 'operator-flags.jsonl') : null;
const started = Date.now();
try {
  const b = budget;
  const result = await runCollection({
    outDir,
    week,
    metros,
    provider,
    spentUsd: () => b?.spentUsd ?? 0,
    resume: values.resume ?? false,
    collectedAt,
    concurrency,
    flags: readOperatorFlags(flagsPath),
    quiet: values.quiet ?? false,
    onLogOpen: (requests) => b?.addSpent(requests),
    onProgress: (progress, state) => {
      bridge.note = (m) => progress.note(m);
      bridge.retried = () => void state.retries++;
    },
  });
  const spent = b === null ? 'nothing (replay)' : `$${b.spentUsd.toFixed(2)} of $${b.limitUsd.toFixed(2)} (${b.requests} requests, ${result.boughtThisRun} samples bought by this run)`;
  const lines = [
    `collect: ${week}, ${metros.length} metro(s): ${result.done} of ${result.total} samples; spent ${spent}; ${result.errors} errors; ${Math.round((Date.now() - started) / 1000)} s`,
  ];
  if (result.week) {
    const w = result.week;
    const skipped = Object.entries(w.skipped).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
    lines.push(`collect: ${w.places.length} offices, ${w.samples.length} sample lines, ${w.flags.length} firm flags${skipped === '' ? '' : `; places without a record: ${skipped}`}`);
    if (result.archive !== undefined) lines.push(`collect: raw answers archived in ${result.archive} (operator-side, never publish; delete after 30 days)`);
  }
  lines.push(`collect: ${result.message}`);
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(result.status === 'complete' ? 0 : result.status === 'budget' ? 3 : 1);
} catch (err) {
  process.stderr.write(`collect: ${(err as Error).message}\n`);
  process.exit(1);
}
