/** `npm run audit -- verify ...`, `npm run audit -- diff <old> <new>` and `npm run audit -- measure ...`: the auditor's tools (docs/AUDIT.md). */
import { diffSites, formatDiff } from './diff.ts';
import { formatMeasureReport, measure, measureExitCode } from './measure.ts';
import { parseQuery, QueryError, type AuditQuery } from './queries.ts';
import { StoreError } from '../../shim/core/errors.ts';
import type { SiteLocation } from '../site/site.ts';
import { formatVerifyReport, verify, verifyExitCode } from './verify.ts';
import { parseCli } from '../cli-args.ts';

const HELP = `Usage: npm run audit -- <command> [options]

Commands:
  verify   check a published version (manifest, cell tree) and compare live /v1/attorneys answers with answers
           recomputed from the published office records alone
  diff     what changed between two published versions: offices added, removed, changed, flag changes and
           map-visibility moves
  measure  recompute every map_visibility and brand_index from the version's published measurement data and
           compare them with the published shards, firm documents, meta.json and coverage.json

npm run audit -- <command> --help   options of a command. See docs/AUDIT.md.`;

const VERIFY_HELP = `Usage: npm run audit -- verify (--site <folder> | --bucket <name> [--prefix P] [--endpoint URL] [--region R])
                              [--version V] [--url <live API base URL>] [--query '<query>']... [--sample N] [--seed S]
                              [--no-manifest] [--no-tree] [--json] [--quiet]

Reads one published version (default: the one current.json names) and checks:
  - the manifest: every listed object present with its sha256 and size, nothing unlisted under v/<version>/,
    and the version id recomputed from the content hashes (skip with --no-manifest);
  - the cell tree: every record chunk of every block of every group read in full, each record agreeing with its block's
    columns, no listing twice, totals as meta.json says, and the index, groups (counts, reaches, shared firms) and
    blocks rebuilt from those records by the published rules and compared byte for byte (skip the rebuild with --no-tree);
  - with --url: that the live API serves this version (GET /v1/coverage equals the published coverage.json, before and
    after the queries), then for each query GET /v1/attorneys and the same answer recomputed by brute force from
    every published office: haversine distance (R = 3958.8 mi), offices within the radius, nearest office per firm,
    order by distance then listing_id, limit; compares listing ids, order, distance_miles (2 decimals),
    firms_within_radius, offices_within_radius, covered and location.metro, and the shown name, address, flags and
    visibility against the published record.

Options:
  --site <folder>       a site folder (as written by npm run generate)
  --bucket <name>       an S3 bucket instead (credentials from the usual AWS chain); --prefix, --endpoint, --region
  --version <id>        version to check instead of current.json's
  --url <base>          the live API, e.g. http://127.0.0.1:8787 or https://api.example.org
  --query <q>           a query string as sent to /v1/attorneys, e.g. 'lat=41.88&lng=-87.63&radius_miles=15&limit=10'
                        (repeatable; zip= and location= work too: the point is then the live answer's resolved one)
  --sample <N>          N seeded random points in the measured metros, radius 1-50 mi, limit 1-25
                        (default 30 when --url is given without --query)
  --seed <S>            seed of --sample (default 1)
  --concurrency <N>     live requests at once (default 4; the API allows 600 requests an hour per address)
  --json                print the full report as JSON instead of text
  --quiet               no progress on stderr
  -h, --help            this text

Exit status: 0 every check passed, 1 a difference was found (the report says expected vs got), 2 usage error or a
check could not run (site unreadable, API unreachable or rate limiting).`;

const DIFF_HELP = `Usage: npm run audit -- diff <old site> <new site> [--old-version V] [--new-version V] [--threshold P]
                            [--max N] [--endpoint URL] [--region R] [--json] [--quiet]

<site> is a site folder or s3://bucket[/prefix]. Each version (default: the one its current.json names) is read in
full from its record chunks (cells/records/). Reports, by listing_id:
  - offices added and removed (and firms added and removed);
  - offices changed: which listing fields differ (name, address, phone, hours, coordinates, firm, flags, ...);
  - flag changes: profile_type and sponsored, old -> new (flags never affect order);
  - visibility moves: offices whose top3_share_pct or appears_share_pct moved by at least --threshold percentage
    points, or whose measuring metro changed, largest move first.

Options:
  --threshold <P>   percentage points for a visibility move (default 1)
  --max <N>         lines per section in the text report (default 20; 0 = all)
  --json            the complete diff as JSON
  --quiet           no progress on stderr
  -h, --help        this text

Exit status: 0 diff printed, 2 usage error or a site could not be read.`;

const MEASURE_HELP = `Usage: npm run audit -- measure (--site <folder> | --bucket <name> [--prefix P] [--endpoint URL] [--region R])
                              [--version V] [--no-firms] [--max N] [--json] [--quiet]

Reads one published version (default: the one current.json names): its measurement documents
(v/<version>/measurement/<metro>.json: per grid point and query, the ranked listing ids the sampler saw), the offices of
every shard of one resolution, coverage.json (metro centres) and coverage-cells.json. Recomputes, independently of the
generator's code, from the documented definitions:
  - per metro: grid_points, queries and grid_samples (points x queries), compared with meta.json and coverage.json;
  - per office: the measuring metro (most samples holding it; ties nearest centre, then slug; never sampled: the
    nearest-centred metro whose coverage cell holds it), top3_share_pct and appears_share_pct (one decimal, half up);
  - per firm and metro: brand_index top3_share_pct, appears_share_pct (a firm counts once per sample, at its best
    office) and offices_measured;
and compares them with every office record in the shards and, unless --no-firms, in every firm document (office,
other_offices and the firm's brand_index). Prints each mismatch as expected vs got, naming the office.

Options:
  --site <folder>     a site folder (as written by npm run generate or npm run release)
  --bucket <name>     an S3 bucket instead (credentials from the usual AWS chain); --prefix, --endpoint, --region
  --version <id>      version to check instead of current.json's
  --no-firms          skip the firm documents (one read per office)
  --max <N>           mismatch lines in the text report (default 50; 0 = all)
  --json              the full report as JSON
  --quiet             no progress on stderr
  -h, --help          this text

Exit status: 0 every published share equals its recomputation, 1 a mismatch or a broken shard was found, 2 usage
error or the site could not be read.`;

function siteFromArg(arg: string, endpoint: string | undefined, region: string | undefined): SiteLocation {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(arg);
  if (m === null) return { kind: 'folder', dir: arg };
  return { kind: 's3', bucket: m[1] as string, prefix: m[2] as string, ...(endpoint !== undefined ? { endpoint } : {}), ...(region !== undefined ? { region } : {}) };
}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new QueryError(`--${name} must be a whole number, got ${raw}`);
  return Number(raw);
}

function usage(message: string, help: string): number {
  const synopsis = help.split('\n\n')[0] ?? help;
  process.stderr.write(`audit: ${message}\n\n${synopsis}\n(--help for every option)\n`);
  return 2;
}

async function runVerify(argv: string[]): Promise<number> {
  const cli = parseCli(
    {
      args: argv,
      options: {
        site: { type: 'string' },
        bucket: { type: 'string' },
        prefix: { type: 'string' },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        version: { type: 'string' },
        url: { type: 'string' },
        query: { type: 'string', multiple: true },
        sample: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        'no-manifest': { type: 'boolean', default: false },
        'no-tree': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      onUsageError: (message) => usage(message, VERIFY_HELP),
    },
    VERIFY_HELP,
  );
  if ('exit' in cli) return cli.exit;
  const a = cli.values;
  if ((a.site === undefined) === (a.bucket === undefined)) return usage('give exactly one of --site and --bucket', VERIFY_HELP);
  let queries: AuditQuery[];
  let sample: number | undefined;
  let seed: number | undefined;
  let concurrency: number | undefined;
  try {
    queries = (a.query ?? []).map(parseQuery);
    sample = positiveInt('sample', a.sample);
    seed = positiveInt('seed', a.seed);
    concurrency = positiveInt('concurrency', a.concurrency);
  } catch (err) {
    if (err instanceof QueryError) return usage(err.message, VERIFY_HELP);
    throw err;
  }
  if (a.url === undefined && (queries.length > 0 || sample !== undefined)) return usage('--query and --sample need --url (the live API to compare with)', VERIFY_HELP);
  if (a.url !== undefined && !/^https?:\/\//.test(a.url)) return usage(`--url must be an http(s) URL, got ${a.url}`, VERIFY_HELP);
  if (a.url !== undefined && queries.length === 0 && sample === undefined) sample = 30;
  const site: SiteLocation =
    a.site !== undefined
      ? { kind: 'folder', dir: a.site }
      : { kind: 's3', bucket: a.bucket as string, ...(a.prefix !== undefined ? { prefix: a.prefix } : {}), ...(a.endpoint !== undefined ? { endpoint: a.endpoint } : {}), ...(a.region !== undefined ? { region: a.region } : {}) };
  const t0 = performance.now();
  try {
    const report = await verify({
      site,
      ...(a.version !== undefined ? { version: a.version } : {}),
      ...(a.url !== undefined ? { url: a.url } : {}),
      queries,
      ...(sample !== undefined ? { sample } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      manifest: !a['no-manifest'],
      rebuildTree: !a['no-tree'],
      ...(a.quiet ? {} : { log: (line: string) => void process.stderr.write(`${line}\n`) }),
    });
    process.stdout.write(a.json ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report));
    if (!a.quiet) process.stderr.write(`verify: done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    return verifyExitCode(report);
  } catch (err) {
    if (err instanceof StoreError) {
      process.stderr.write(`audit verify: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

async function runDiff(argv: string[]): Promise<number> {
  const parsed = parseCli(
    {
      args: argv,
      options: {
        'old-version': { type: 'string' },
        'new-version': { type: 'string' },
        threshold: { type: 'string' },
        max: { type: 'string' },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      positionals: true,
      onUsageError: (message) => usage(message, DIFF_HELP),
    },
    DIFF_HELP,
  );
  if ('exit' in parsed) return parsed.exit;
  const a = parsed.values;
  const [oldArg, newArg, ...rest] = parsed.positionals;
  if (oldArg === undefined || newArg === undefined || rest.length > 0) return usage('give exactly two sites: <old> <new>', DIFF_HELP);
  const threshold = a.threshold === undefined ? 1 : Number(a.threshold);
  if (!Number.isFinite(threshold) || threshold < 0) return usage(`--threshold must be a number of percentage points >= 0, got ${a.threshold}`, DIFF_HELP);
  const max = a.max === undefined ? 20 : Number(a.max);
  if (!Number.isInteger(max) || max < 0) return usage(`--max must be a whole number, got ${a.max}`, DIFF_HELP);
  try {
    const d = await diffSites(siteFromArg(oldArg, a.endpoint, a.region), siteFromArg(newArg, a.endpoint, a.region), {
      ...(a['old-version'] !== undefined ? { oldVersion: a['old-version'] } : {}),
      ...(a['new-version'] !== undefined ? { newVersion: a['new-version'] } : {}),
      threshold,
      ...(a.quiet ? {} : { log: (line: string) => void process.stderr.write(`${line}\n`) }),
    });
    process.stdout.write(a.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d, max));
    return 0;
  } catch (err) {
    if (err instanceof StoreError) {
      process.stderr.write(`audit diff: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

async function runMeasure(argv: string[]): Promise<number> {
  const cli = parseCli(
    {
      args: argv,
      options: {
        site: { type: 'string' },
        bucket: { type: 'string' },
        prefix: { type: 'string' },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        version: { type: 'string' },
        'no-firms': { type: 'boolean', default: false },
        max: { type: 'string' },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      onUsageError: (message) => usage(message, MEASURE_HELP),
    },
    MEASURE_HELP,
  );
  if ('exit' in cli) return cli.exit;
  const a = cli.values;
  if ((a.site === undefined) === (a.bucket === undefined)) return usage('give exactly one of --site and --bucket', MEASURE_HELP);
  const max = a.max === undefined ? 50 : Number(a.max);
  if (!Number.isInteger(max) || max < 0) return usage(`--max must be a whole number, got ${a.max}`, MEASURE_HELP);
  const site: SiteLocation =
    a.site !== undefined
      ? { kind: 'folder', dir: a.site }
      : { kind: 's3', bucket: a.bucket as string, ...(a.prefix !== undefined ? { prefix: a.prefix } : {}), ...(a.endpoint !== undefined ? { endpoint: a.endpoint } : {}), ...(a.region !== undefined ? { region: a.region } : {}) };
  try {
    const report = await measure({
      site,
      ...(a.version !== undefined ? { version: a.version } : {}),
      firms: !a['no-firms'],
      ...(a.quiet ? {} : { log: (line: string) => void process.stderr.write(`${line}\n`) }),
    });
    process.stdout.write(a.json ? `${JSON.stringify(report, null, 2)}\n` : formatMeasureReport(report, max));
    return measureExitCode(report);
  } catch (err) {
    if (err instanceof StoreError) {
      process.stderr.write(`audit measure: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'verify') return runVerify(rest);
  if (command === 'diff') return runDiff(rest);
  if (command === 'measure') return runMeasure(rest);
  return usage(`unknown command ${JSON.stringify(command)}`, HELP);
}

process.exitCode = await main(process.argv.slice(2));
