/** `npm run publish -- --bucket B [--endpoint URL] [--prefix P] [--distribution ID] [--site site/] [--dry-run]`: atomic publish to S3. */
import { parseArgs } from 'node:util';
import { CACHE_IMMUTABLE, CACHE_POINTER, MAX_LISTING_INVALIDATIONS, publishSite } from './publish.ts';
import { readRemovals } from './removals.ts';

const HELP = `Usage: npm run publish -- --bucket <name> [options]

Publishes the version named by <site>/current.json to S3, atomically:
  1. every object of <site>/v/<version>/ (checked against its manifest) goes to <prefix>v/<version>/...
     - skipped when the bucket already holds it under that version (same sha256),
     - copied server-side from the serving version when unchanged since it,
     - uploaded otherwise (gzip-encoded when larger than 1 KiB and at least 10% smaller);
  2. then <prefix>v/<version>/manifest.json;
  3. then, LAST, the pointer <prefix>current.json. A publish that stops earlier leaves the previous version serving,
     and running it again resumes where it stopped.
Refused before anything is written when the version holds a listing under a standing removal (<data>/removals.jsonl),
so publishing an older site folder (a rollback) cannot bring a removed listing back.
Cache-Control: versioned objects "${CACHE_IMMUTABLE}", pointer "${CACHE_POINTER}".
The CloudFront paths whose answers changed are printed on stdout, one per line (more than ${MAX_LISTING_INVALIDATIONS}
changed listings become /v1/firms/* and /r/*); with --distribution they are also invalidated.
Credentials come from the usual AWS sources (environment, profile, role).

Options:
  --bucket <name>        S3 bucket (required)
  --prefix <p>           key prefix in the bucket (default: none)
  --site <dir>           generated site folder (default: site/)
  --version <v>          version folder to publish (default: the one <site>/current.json names)
  --data <dir>           input folder holding removals.jsonl (default: data/)
  --endpoint <url>       S3-compatible endpoint, e.g. http://127.0.0.1:4568 (path-style addressing)
  --region <r>           AWS region (default: AWS_REGION, then us-east-1)
  --distribution <id>    CloudFront distribution to invalidate after the pointer is written
  --concurrency <n>      requests in flight (default 16)
  --no-gzip              store every object uncompressed
  --dry-run              read the bucket, print the plan and the paths, write nothing
  --json                 print the full report as JSON on stdout instead of the paths
  --quiet                no progress output on stderr
  -h, --help             this text

Exit status: 0 published (or nothing to do); 1 failure: the previous version still serves, or (said so) the new version
is live but the invalidation failed; 2 usage error.`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        bucket: { type: 'string' },
        prefix: { type: 'string' },
        site: { type: 'string', default: 'site/' },
        version: { type: 'string' },
        data: { type: 'string', default: 'data/' },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        distribution: { type: 'string' },
        concurrency: { type: 'string', default: '16' },
        'no-gzip': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const concurrency = Number(args.concurrency);
  if (!args.bucket || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    process.stderr.write(`${!args.bucket ? '--bucket is required' : '--concurrency must be an integer from 1 to 256'}\n\n${HELP}\n`);
    return 2;
  }
  try {
    const report = await publishSite({
      removals: await readRemovals(args.data),
      ...(args.version !== undefined ? { version: args.version } : {}),
      bucket: args.bucket,
      siteDir: args.site,
      concurrency,
      gzip: !args['no-gzip'],
      dryRun: args['dry-run'],
      quiet: args.quiet,
      ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
      ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
      ...(args.region !== undefined ? { region: args.region } : {}),
      ...(args.distribution !== undefined ? { distributionId: args.distribution } : {}),
    });
    if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else for (const path of report.invalidationPaths) process.stdout.write(`${path}\n`);
    if (report.invalidationError) {
      process.stderr.write(`publish: version ${report.version} is live, but the CloudFront invalidation failed: ${report.invalidationError}\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    process.stderr.write(`publish: failed; the bucket's pointer was not moved, the previous version still serves: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

process.exitCode = await main();
