/** `npm run publish -- --bucket B [--endpoint URL] [--prefix P] [--site site/] [--dry-run]`: upload a version to S3, a step of release that never moves the pointer. */
import { describeFailure } from '../failure.ts';
import { MAX_PACK_INVALIDATIONS } from './invalidation.ts';
import { CACHE_IMMUTABLE, CACHE_POINTER, publishSite } from './publish.ts';
import { readRemovals } from '../model/removals.ts';
import { prefixesReadBy } from '../site/bucket-version.ts';
import { keys } from '../../shim/format/site-format.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { EXIT, runCli } from '../../shim/lib/cli-run.ts';
import { REQUIRED_BUCKET_OPTIONS } from '../site/bucket-options.ts';

const SPEC = {
  name: 'publish',
  usage: 'npm run publish -- --bucket <name> [options]',
  description: `A step of \`npm run release\`, which runs it itself: uploads a version of the site folder to S3 and never makes it
live. It never writes the bucket's pointer (current.json) nor invalidates anything; only \`npm run release\` (the
weekly release, corrections, removals: gates, standing removals and verify first) and \`npm run release -- --rollback\`
change what is live. Copying nothing:
  1. plan against the bucket (nothing is written yet):
     - the first version, or one that changed much, goes up complete: every object of <site>/v/<version>/ under
       <prefix>v/<version>/, then its manifest.json;
     - otherwise (a correction) it goes up as a layer over the serving version: only the objects that are new or
       changed are uploaded, and its meta.json carries a map saying which earlier version's prefix holds every other
       object (one hop; a layer over a layer keeps pointing where the serving one read). Readers resolve every key
       of a version through that one map, so an answer never mixes versions;
     - a version already in the bucket (a rollback) uploads nothing;
     - objects already under the version with the same sha256 (an interrupted run) are skipped;
  2. upload the planned objects (checked against the local manifest; gzip-encoded when larger than 1 KiB and at
     least 10% smaller), then the manifest (complete) or the meta.json with the map (layer);
  3. the pointer <prefix>current.json is left as it is: the version is in the bucket, not live. Running it again
     resumes where it stopped.
Every version prefix a kept version's map names must stay in the bucket (publish never deletes anything).
Refused before anything is written when the version holds a listing under a standing removal (<data>/removals.jsonl),
so publishing an older site folder (a rollback) cannot bring a removed listing back.
Cache-Control: versioned objects "${CACHE_IMMUTABLE}", pointer "${CACHE_POINTER}".
Release prints and invalidates the CloudFront paths whose answers change when it moves the pointer (each changed firm pack as
/v1/firms/l_<pack prefix>*; more than ${MAX_PACK_INVALIDATIONS} changed packs become /v1/firms/* and /r/*).
Credentials come from the usual AWS sources (environment, profile, role).`,
  options: {
    ...REQUIRED_BUCKET_OPTIONS,
    site: { type: 'string', arg: 'dir', description: 'generated site folder', default: 'site/' },
    version: {
      type: 'string',
      arg: 'v',
      description: 'version folder to publish (default: the one <site>/current.json names)',
    },
    data: { type: 'string', arg: 'dir', description: 'input folder holding removals.jsonl', default: 'data/' },
    concurrency: { type: 'integer', min: 1, max: 256, description: 'requests in flight', default: 16 },
    'no-gzip': { type: 'boolean', description: 'store every object uncompressed' },
    'prefixes-of': {
      type: 'string',
      arg: 'v,...',
      description:
        "publish nothing: print every version prefix (v/<version>/) these versions read from, one per\nline (themselves, and a layer's base and earlier layers); keep them all when pruning",
    },
    complete: {
      type: 'boolean',
      description: "never publish as a layer (every object under the version's own prefix)",
    },
    'dry-run': {
      type: 'boolean',
      description:
        'read the bucket, print the plan (one line, then each key it would write, then the\nCloudFront paths), write nothing',
    },
    json: { type: 'boolean', description: 'print the full report as JSON on stdout instead of the paths' },
    quiet: { type: 'boolean', description: 'no progress output on stderr' },
  },
  exits: {
    [EXIT.ok]: 'uploaded (or nothing to do)',
    [EXIT.failure]: 'failure (what is live never changes)',
  },
} as const;

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const concurrency = args.concurrency;
  if (args['prefixes-of'] !== undefined) return printPrefixes(args.bucket, args['prefixes-of'], args);
  try {
    const report = await publishSite({
      removals: await readRemovals(args.data),
      ...(args.version !== undefined ? { version: args.version } : {}),
      bucket: args.bucket,
      siteDir: args.site,
      concurrency,
      gzip: !args['no-gzip'],
      dryRun: args['dry-run'],
      complete: args.complete,
      quiet: args.quiet,
      ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
      ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
      ...(args.region !== undefined ? { region: args.region } : {}),
      writePointer: false,
    });
    if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else if (report.dryRun) {
      process.stdout.write(`${report.plan}\n`);
      for (const key of report.plannedPuts ?? []) process.stdout.write(`put ${key}\n`);
      for (const path of report.invalidationPaths) process.stdout.write(`invalidate ${path}\n`);
    } else if (!args.quiet) {
      process.stderr.write(
        `publish: version ${report.version} is in the bucket, not live; \`npm run release\` makes a version live\n`,
      );
    }
    return 0;
  } catch (err) {
    process.stderr.write(
      `publish: failed; the bucket's pointer was not moved, the previous version still serves: ${describeFailure(err)}\n`,
    );
    return 1;
  }
}

/** `--prefixes-of`: the prefixes a list of versions reads from, read from the bucket. */
async function printPrefixes(
  bucket: string,
  list: string,
  args: { prefix?: string; endpoint?: string; region?: string },
): Promise<number> {
  const versions = list
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (versions.length === 0 || versions.some((v) => !/^[A-Za-z0-9._-]+$/.test(v))) {
    process.stderr.write(`--prefixes-of takes a comma-separated list of version ids, got ${JSON.stringify(list)}\n`);
    return 2;
  }
  const store = new S3Store({
    bucket,
    ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
    ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
    ...(args.region !== undefined ? { region: args.region } : {}),
  });
  try {
    for (const v of await prefixesReadBy(store, versions)) process.stdout.write(`${keys.root(v)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`publish --prefixes-of: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
