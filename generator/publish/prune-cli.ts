/** `npm run prune -- --bucket B --keep N [--dry-run]`: delete old version prefixes no kept version reads from. */
import { s3Client } from '../../shim/aws/s3-client.ts';
import { parseCli } from '../cli-args.ts';
import { MAX_BATCH, PruneStoppedError, pruneBucket } from './prune-bucket.ts';

const HELP = `Usage: npm run prune -- --bucket <name> --keep <n> [options]

Deletes old version prefixes (v/<version>/) from the bucket, keeping:
  - the version the pointer (current.json) names;
  - the newest <n> versions with a meta.json (by week, then by when meta.json was written), the serving one included;
  - every prefix a kept version reads from (a correction layer's base and every version its map names);
  - any prefix with an object younger than --min-age-hours (a publish may still be uploading it).
It refuses to delete anything when the pointer's version or a prefix a kept version reads from is missing, or a
meta.json's layer map does not parse. Deleted objects stay recoverable as noncurrent versions until the bucket's
lifecycle rule removes them (30 days in the stack). Progress and the plan go to stderr; the deleted prefixes to stdout.

Deleting goes in an order that never damages a kept version: no kept prefix is touched, and the meta.json of every
version to delete goes first, so a run that stops part way (a slow store, a timeout, Ctrl-C) leaves no half-deleted
version that can be pointed at or counted as kept. Run the same command again and it deletes what is left. Each
request is retried with backoff by the SDK (--max-attempts); a store that answers slowly needs a longer
--request-timeout-ms or a smaller --batch-size (s3rver takes several seconds per 1,000 keys).

Options:
  --bucket <name>        S3 bucket (required)
  --keep <n>             versions to keep, the serving one included (required, >= 1; we suggest 12: a quarter of weeks)
  --prefix <p>           key prefix in the bucket (default: none)
  --min-age-hours <h>    never delete a prefix holding an object younger than this (default 24)
  --endpoint <url>       S3-compatible endpoint, e.g. http://127.0.0.1:4568 (path-style addressing)
  --region <r>           AWS region (default: AWS_REGION, then us-east-1)
  --batch-size <n>       keys per delete request, 1 to 1000 (default 1000)
  --request-timeout-ms <ms>  how long one request may take before it is retried (default 30000)
  --max-attempts <n>     attempts per request, the first included, with the SDK's backoff between (default 5)
  --dry-run              print the plan, delete nothing
  -h, --help             this text

Exit status: 0 pruned (or nothing to prune); 1 refusal or failure before deleting (nothing deleted); 2 usage error;
3 stopped part way (every kept version whole; the message says how much was deleted; run it again to finish).`;

async function main(): Promise<number> {
  const cli = parseCli(
    {
      options: {
        bucket: { type: 'string' },
        keep: { type: 'string' },
        prefix: { type: 'string' },
        'min-age-hours': { type: 'string', default: '24' },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        'batch-size': { type: 'string', default: String(MAX_BATCH) },
        'request-timeout-ms': { type: 'string', default: '30000' },
        'max-attempts': { type: 'string', default: '5' },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    },
    HELP,
  );
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const keep = Number(args.keep);
  const minAgeHours = Number(args['min-age-hours']);
  const batchSize = Number(args['batch-size']);
  const timeoutMs = Number(args['request-timeout-ms']);
  const maxAttempts = Number(args['max-attempts']);
  const problem = !args.bucket
    ? '--bucket is required'
    : !Number.isInteger(keep) || keep < 1 || !Number.isFinite(minAgeHours) || minAgeHours < 0
      ? '--keep must be an integer >= 1 and --min-age-hours a number >= 0'
      : !Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH
        ? `--batch-size must be an integer from 1 to ${MAX_BATCH}`
        : !Number.isInteger(timeoutMs) || timeoutMs < 1 || !Number.isInteger(maxAttempts) || maxAttempts < 1
          ? '--request-timeout-ms and --max-attempts must be integers >= 1'
          : null;
  const bucket = args.bucket;
  if (problem !== null || bucket === undefined) {
    process.stderr.write(`${problem ?? '--bucket is required'}\n\n${HELP}\n`);
    return 2;
  }
  try {
    const client = s3Client({
      ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
      ...(args.region !== undefined ? { region: args.region } : {}),
      requestTimeoutMs: timeoutMs,
      socketTimeoutMs: timeoutMs,
      maxAttempts,
    });
    const result = await pruneBucket({
      client,
      bucket,
      keep,
      minAgeMs: minAgeHours * 3_600_000,
      batchSize,
      dryRun: args['dry-run'],
      ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
    });
    for (const r of result.remove) process.stdout.write(`${args['dry-run'] ? 'would delete' : 'deleted'} v/${r.version}/\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`prune: ${(err as Error).message}\n`);
    return err instanceof PruneStoppedError ? 3 : 1;
  }
}

process.exitCode = await main();
