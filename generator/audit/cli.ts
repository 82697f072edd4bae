/** `npm run audit -- verify|diff|measure|mirror ...`: the auditor's tools, over a folder, a bucket or the public service (docs/AUDIT.md). */
import { diffSites, formatDiff } from './diff.ts';
import { formatMeasureReport, measure, measureExitCode } from './measure.ts';
import { parseQuery, QueryError, type AuditQuery } from './queries.ts';
import { StoreError } from '../../shim/contract/errors.ts';
import type { AuditLocation } from '../site/site.ts';
import { formatMirror, mirror } from './mirror.ts';
import { formatVerifyReport, verify, verifyExitCode } from './verify.ts';
import { EXIT, parseCliArgs, type CliSpec, type Options, type Values } from '../../shim/lib/cli-args.ts';
import { BUCKET_OPTIONS } from '../site/bucket-options.ts';

const HELP = `Usage: npm run audit -- <command> [options]

Commands:
  verify   check a published version (manifest, cell tree) and compare live /v1/attorneys answers with answers
           recomputed from the published office records alone
  diff     what changed between two published versions: offices added, removed, changed, flag changes and
           map-visibility moves
  measure  recompute every map_visibility and brand_index from the version's published measurement data and
           compare them with the published office records, firm documents, meta.json and coverage.json
  mirror   save the version the service serves now into a folder, to diff next week's against it

Each reads the public service with --url <base> (no credentials: the served version's objects are public at
/v/<version>/...), or a site folder (--site, e.g. a saved mirror) or bucket (--bucket, with credentials).

npm run audit -- <command> --help   options of a command. See docs/AUDIT.md.`;

/** Where verify and measure read one published version: a folder or a bucket, and which version. */
const SITE_OPTIONS = {
  site: {
    type: 'string',
    arg: 'folder',
    description: 'a site folder (as written by npm run generate or npm run release)',
  },
  ...BUCKET_OPTIONS,
  bucket: {
    ...BUCKET_OPTIONS.bucket,
    description: 'an S3 bucket instead (credentials from the usual AWS chain); --prefix, --endpoint, --region',
  },
  version: { type: 'string', arg: 'id', description: "version to check instead of current.json's" },
} as const;

/** The public service as the site, for measure (verify's --url is also its live API). */
const URL_OPTION = {
  url: {
    type: 'string',
    arg: 'base',
    description: "the public service, e.g. https://api.example.org: its served version's objects, no credentials",
  },
} as const;

const VERIFY_SPEC = {
  name: 'audit verify',
  usage: `npm run audit -- verify [--site <folder> | --bucket <name> [--prefix P] [--endpoint URL] [--region R]]
                              [--version V] [--url <service base URL>] [--query '<query>']... [--sample N] [--seed S]
                              [--no-manifest] [--no-tree] [--json] [--quiet]`,
  description: `Reads one published version (default: the one current.json names) from --site, --bucket or, with --url
alone, from the service itself (its served version's objects at /v/<version>/..., no credentials), and checks:
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
    visibility against the published record.`,
  options: {
    ...SITE_OPTIONS,
    url: {
      type: 'string',
      arg: 'base',
      description:
        'the live API, e.g. http://127.0.0.1:8787 or https://api.example.org; alone, also where the site is read',
    },
    query: {
      type: 'string',
      multiple: true,
      arg: 'q',
      description:
        "a query string as sent to /v1/attorneys, e.g. 'lat=41.88&lng=-87.63&radius_miles=15&limit=10'\n(zip= and location= work too: the point is then the live answer's resolved one)",
    },
    sample: {
      type: 'integer',
      min: 0,
      arg: 'N',
      description:
        'N seeded random points in the measured metros, radius 1-50 mi, limit 1-25\n(default 30 when --url is given without --query)',
    },
    seed: { type: 'integer', min: 0, arg: 'S', description: 'seed of --sample (default 1)' },
    concurrency: {
      type: 'integer',
      min: 0,
      arg: 'N',
      description: 'live requests at once (default 4; the API allows 600 requests an hour per address)',
    },
    'no-manifest': { type: 'boolean', description: 'skip the manifest check' },
    'no-tree': { type: 'boolean', description: 'skip the rebuild of the cell tree' },
    json: { type: 'boolean', description: 'print the full report as JSON instead of text' },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  exits: {
    [EXIT.ok]: 'every check passed',
    [EXIT.failure]: 'a difference was found (the report says expected vs got)',
    [EXIT.usage]: 'usage error or a check could not run (site unreadable, API unreachable or rate limiting)',
  },
} as const;

const DIFF_SPEC = {
  name: 'audit diff',
  usage: `npm run audit -- diff <old site> (<new site> | --url <base>) [--old-version V] [--new-version V]
                            [--threshold P] [--max N] [--endpoint URL] [--region R] [--json] [--quiet]`,
  description: `<site> is a site folder (e.g. a copy saved by audit mirror), s3://bucket[/prefix] or the public service's
base URL (http(s)://...); --url <base> is the new site. Each version (default: the one its current.json names) is
read in full from its record chunks (cells/records/). Reports, by listing_id:
  - offices added and removed (and firms added and removed);
  - offices changed: which listing fields differ (name, address, phone, hours, coordinates, firm, flags, ...);
  - flag changes: profile_type and sponsored, old -> new (flags never affect order);
  - visibility moves: offices whose top3_share_pct or appears_share_pct moved by at least --threshold percentage
    points, or whose measuring metro changed, largest move first.`,
  positionals: { min: 1, max: 2 },
  options: {
    url: { type: 'string', arg: 'base', description: 'the public service as the new site (instead of <new site>)' },
    'old-version': {
      type: 'string',
      arg: 'V',
      description: 'version of the old site (default: the one its current.json names)',
    },
    'new-version': {
      type: 'string',
      arg: 'V',
      description: 'version of the new site (default: the one its current.json names)',
    },
    threshold: { type: 'number', min: 0, arg: 'P', description: 'percentage points for a visibility move', default: 1 },
    max: {
      type: 'integer',
      min: 0,
      arg: 'N',
      description: 'lines per section in the text report (0 = all)',
      default: 20,
    },
    endpoint: BUCKET_OPTIONS.endpoint,
    region: BUCKET_OPTIONS.region,
    json: { type: 'boolean', description: 'the complete diff as JSON' },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  exits: { [EXIT.ok]: 'diff printed', [EXIT.failure]: '', [EXIT.usage]: 'usage error or a site could not be read' },
} as const;

const MEASURE_SPEC = {
  name: 'audit measure',
  usage: `npm run audit -- measure (--url <base> | --site <folder> | --bucket <name> [--prefix P] [--endpoint URL]
                              [--region R]) [--version V] [--no-firms] [--max N] [--json] [--quiet]`,
  description: `Reads one published version (default: the one current.json names): its measurement documents
(v/<version>/measurement/<metro>.json: per grid point and query, the ranked listing ids the sampler saw), every office
record of the cell tree, coverage.json (metro centres) and coverage-cells.json. Recomputes, independently of the
generator's code, from the documented definitions:
  - per metro: grid_points, queries and grid_samples (points x queries), compared with meta.json and coverage.json;
  - per office: the measuring metro (most samples holding it; ties nearest centre, then slug; never sampled: the
    nearest-centred metro whose coverage cell holds it), top3_share_pct and appears_share_pct (one decimal, half up);
  - per firm and metro: brand_index top3_share_pct, appears_share_pct (a firm counts once per sample, at its best
    office) and offices_measured;
and compares them with every office record of the cell tree and, unless --no-firms, in every firm document (office,
other_offices and the firm's brand_index). Prints each mismatch as expected vs got, naming the office.`,
  options: {
    ...URL_OPTION,
    ...SITE_OPTIONS,
    'no-firms': { type: 'boolean', description: 'skip the firm documents (one read per firm pack)' },
    max: { type: 'integer', min: 0, arg: 'N', description: 'mismatch lines in the text report (0 = all)', default: 50 },
    json: { type: 'boolean', description: 'the full report as JSON' },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  exits: {
    [EXIT.ok]: 'every published share equals its recomputation',
    [EXIT.failure]: 'a mismatch or a broken office record was found',
    [EXIT.usage]: 'usage error or the site could not be read',
  },
} as const;

const MIRROR_SPEC = {
  name: 'audit mirror',
  usage: `npm run audit -- mirror --url <base> --out <folder> [--concurrency N] [--quiet]`,
  description: `Saves the version the service at --url serves now into <folder>: every object its manifest.json lists, each
checked against the manifest's sha256 and size, then the manifest and a current.json naming the version. The folder
is a site folder: next week, \`npm run audit -- diff <folder> --url <base>\` shows what changed since. Run again on
the same folder, it fetches only what is missing. Every request counts toward the service's per-address ceiling (a
429 is waited out as its Retry-After says); the terms allow the copy for auditing, not for republishing the directory.`,
  options: {
    url: { type: 'string', arg: 'base', description: 'the public service, e.g. https://api.example.org' },
    out: { type: 'string', arg: 'folder', description: 'where the copy is saved (one folder per week)' },
    concurrency: { type: 'integer', min: 1, arg: 'N', description: 'requests at once (default 4)' },
    json: { type: 'boolean', description: 'the report as JSON' },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  exits: {
    [EXIT.ok]: 'the copy is complete',
    [EXIT.failure]: 'an object did not match the manifest (the copy has no current.json)',
    [EXIT.usage]: 'usage error or the service could not be read',
  },
} as const;

/** An http(s) base URL, or null when `arg` is not one. */
function httpBase(arg: string): string | null {
  if (!/^https?:\/\//i.test(arg)) return null;
  try {
    return new URL(arg).href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

function siteFromArg(arg: string, endpoint: string | undefined, region: string | undefined): AuditLocation {
  const url = httpBase(arg);
  if (url !== null) return { kind: 'http', url };
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(arg);
  if (m === null) return { kind: 'folder', dir: arg };
  return {
    kind: 's3',
    bucket: m[1] as string,
    prefix: m[2] as string,
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(region !== undefined ? { region } : {}),
  };
}

/** The version verify and measure read, from --site, --bucket or --url (exactly one is given). */
function siteFromOptions(a: Values<typeof SITE_OPTIONS> & { url?: string | undefined }): AuditLocation {
  if (a.site !== undefined) return { kind: 'folder', dir: a.site };
  if (a.bucket === undefined && a.url !== undefined) return { kind: 'http', url: a.url.replace(/\/+$/, '') };
  return {
    kind: 's3',
    bucket: a.bucket as string,
    ...(a.prefix !== undefined ? { prefix: a.prefix } : {}),
    ...(a.endpoint !== undefined ? { endpoint: a.endpoint } : {}),
    ...(a.region !== undefined ? { region: a.region } : {}),
  };
}
const ONE_SITE = 'give exactly one of --site and --bucket (or --url alone)';
const ONE_SITE_OR_URL = 'give exactly one of --url, --site and --bucket';

/** Run a command's work: a store that cannot be read is its message on stderr and exit 2, not a stack trace. */
async function storeErrorsAreUsage(command: string, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreError) {
      process.stderr.write(`audit ${command}: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

/** The progress logger of a command: lines on stderr, or none with --quiet. */
const progress = (quiet: boolean): { log?: (line: string) => void } =>
  quiet ? {} : { log: (line: string) => void process.stderr.write(`${line}\n`) };

/** A usage error of a command: the message and its synopsis on stderr (exit 2). */
function usage(message: string, spec: CliSpec): number {
  process.stderr.write(`audit: ${message}\n\nUsage: ${spec.usage}\n(--help for every option)\n`);
  return EXIT.usage;
}

/** Parse a command's arguments: the values, or the exit status once --help or a usage error was answered. */
function parseCommand<const O extends Options>(
  spec: CliSpec<O>,
  argv: string[],
): { values: Values<O>; positionals: string[] } | { exit: number } {
  const r = parseCliArgs(spec, argv);
  if (r.kind === 'help') {
    process.stdout.write(`${r.text}\n`);
    return { exit: EXIT.ok };
  }
  if (r.kind === 'usage') return { exit: usage(r.message, spec) };
  return r;
}

async function runVerify(argv: string[]): Promise<number> {
  const cli = parseCommand(VERIFY_SPEC, argv);
  if ('exit' in cli) return cli.exit;
  const a = cli.values;
  if (a.site !== undefined && a.bucket !== undefined) return usage(ONE_SITE, VERIFY_SPEC);
  if (a.site === undefined && a.bucket === undefined && a.url === undefined) return usage(ONE_SITE, VERIFY_SPEC);
  let queries: AuditQuery[];
  let sample = a.sample;
  const { seed, concurrency } = a;
  try {
    queries = a.query.map(parseQuery);
  } catch (err) {
    if (err instanceof QueryError) return usage(err.message, VERIFY_SPEC);
    throw err;
  }
  if (a.url === undefined && (queries.length > 0 || sample !== undefined))
    return usage('--query and --sample need --url (the live API to compare with)', VERIFY_SPEC);
  if (a.url !== undefined && httpBase(a.url) === null)
    return usage(
      `--url must be an http(s) URL such as https://api.example.org, got ${JSON.stringify(a.url)}`,
      VERIFY_SPEC,
    );
  if (a.url !== undefined && queries.length === 0 && sample === undefined) sample = 30;
  const site = siteFromOptions(a);
  const t0 = performance.now();
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
    ...progress(a.quiet),
  });
  process.stdout.write(a.json ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report));
  if (!a.quiet) process.stderr.write(`verify: done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return verifyExitCode(report);
}

async function runDiff(argv: string[]): Promise<number> {
  const parsed = parseCommand(DIFF_SPEC, argv);
  if ('exit' in parsed) return parsed.exit;
  const a = parsed.values;
  const [oldArg, newPositional] = parsed.positionals as [string, string | undefined];
  if ((newPositional === undefined) === (a.url === undefined))
    return usage('give the new site either as the second argument or as --url <base>, not both', DIFF_SPEC);
  if (a.url !== undefined && httpBase(a.url) === null)
    return usage(
      `--url must be an http(s) URL such as https://api.example.org, got ${JSON.stringify(a.url)}`,
      DIFF_SPEC,
    );
  const newArg = newPositional ?? (a.url as string);
  const { threshold, max } = a;
  const d = await diffSites(siteFromArg(oldArg, a.endpoint, a.region), siteFromArg(newArg, a.endpoint, a.region), {
    ...(a['old-version'] !== undefined ? { oldVersion: a['old-version'] } : {}),
    ...(a['new-version'] !== undefined ? { newVersion: a['new-version'] } : {}),
    threshold,
    ...progress(a.quiet),
  });
  process.stdout.write(a.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d, max));
  return 0;
}

async function runMeasure(argv: string[]): Promise<number> {
  const cli = parseCommand(MEASURE_SPEC, argv);
  if ('exit' in cli) return cli.exit;
  const a = cli.values;
  if ([a.site, a.bucket, a.url].filter((x) => x !== undefined).length !== 1)
    return usage(ONE_SITE_OR_URL, MEASURE_SPEC);
  if (a.url !== undefined && httpBase(a.url) === null)
    return usage(
      `--url must be an http(s) URL such as https://api.example.org, got ${JSON.stringify(a.url)}`,
      MEASURE_SPEC,
    );
  const max = a.max;
  const site = siteFromOptions(a);
  const report = await measure({
    site,
    ...(a.version !== undefined ? { version: a.version } : {}),
    firms: !a['no-firms'],
    ...progress(a.quiet),
  });
  process.stdout.write(a.json ? `${JSON.stringify(report, null, 2)}\n` : formatMeasureReport(report, max));
  return measureExitCode(report);
}

async function runMirror(argv: string[]): Promise<number> {
  const cli = parseCommand(MIRROR_SPEC, argv);
  if ('exit' in cli) return cli.exit;
  const a = cli.values;
  if (a.url === undefined || a.out === undefined)
    return usage('mirror needs --url <base> and --out <folder>', MIRROR_SPEC);
  const url = httpBase(a.url);
  if (url === null)
    return usage(
      `--url must be an http(s) URL such as https://api.example.org, got ${JSON.stringify(a.url)}`,
      MIRROR_SPEC,
    );
  const report = await mirror({
    url,
    out: a.out,
    ...(a.concurrency !== undefined ? { concurrency: a.concurrency } : {}),
    ...progress(a.quiet),
  });
  process.stdout.write(a.json ? `${JSON.stringify(report, null, 2)}\n` : formatMirror(report));
  return report.problems.length === 0 ? EXIT.ok : EXIT.failure;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'verify') return storeErrorsAreUsage('verify', () => runVerify(rest));
  if (command === 'diff') return storeErrorsAreUsage('diff', () => runDiff(rest));
  if (command === 'measure') return storeErrorsAreUsage('measure', () => runMeasure(rest));
  if (command === 'mirror') return storeErrorsAreUsage('mirror', () => runMirror(rest));
  process.stderr.write(`audit: unknown command ${JSON.stringify(command)}\n\n${HELP}\n`);
  return EXIT.usage;
}

process.exitCode = await main(process.argv.slice(2));
