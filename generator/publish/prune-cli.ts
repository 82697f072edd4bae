/** `npm run prune -- --bucket B --keep N [--dry-run]`: delete old version prefixes no kept version reads from. */
import { s3Client } from '../../shim/store/s3-client.ts';
import { EXIT, runCli } from '../../shim/lib/cli-run.ts';
import { MAX_BATCH, PruneStoppedError, pruneBucket } from './prune-bucket.ts';
import { REQUIRED_BUCKET_OPTIONS } from '../site/bucket-options.ts';

const SPEC = {
  name: 'prune',
  usage: 'npm run prune -- --bucket <name> --keep <n> [options]',
  description: `Deletes old version prefixes (v/<version>/) from the bucket, keeping:
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
--request-timeout-ms or a smaller --batch-size (s3rver takes several seconds per 1,000 keys).`,
  options: {
    ...REQUIRED_BUCKET_OPTIONS,
    keep: {
      type: 'integer',
      min: 1,
      required: true,
      description: 'versions to keep, the serving one included (required, >= 1; we suggest 12: a quarter of weeks)',
    },
    'min-age-hours': {
      type: 'number',
      min: 0,
      arg: 'h',
      description: 'never delete a prefix holding an object younger than this',
      default: 24,
    },
    'batch-size': {
      type: 'integer',
      min: 1,
      max: MAX_BATCH,
      description: 'keys per delete request',
      default: MAX_BATCH,
    },
    'request-timeout-ms': {
      type: 'integer',
      min: 1,
      arg: 'ms',
      description: 'how long one request may take before it is retried',
      default: 30_000,
    },
    'max-attempts': {
      type: 'integer',
      min: 1,
      description: "attempts per request, the first included, with the SDK's backoff between",
      default: 5,
    },
    'dry-run': { type: 'boolean', description: 'print the plan, delete nothing' },
  },
  exits: {
    [EXIT.ok]: 'pruned (or nothing to prune)',
    [EXIT.failure]: 'refusal or failure before deleting (nothing deleted)',
    3: 'stopped part way (every kept version whole; the message says how much was deleted; run it again to finish)',
  },
} as const;

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const { bucket, keep } = args;
  const minAgeHours = args['min-age-hours'];
  const batchSize = args['batch-size'];
  const timeoutMs = args['request-timeout-ms'];
  const maxAttempts = args['max-attempts'];
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
    for (const r of result.remove)
      process.stdout.write(`${args['dry-run'] ? 'would delete' : 'deleted'} v/${r.version}/\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`prune: ${(err as Error).message}\n`);
    return err instanceof PruneStoppedError ? 3 : EXIT.failure;
  }
}

process.exitCode = await main();
