/** `npm run prune -- --bucket B --keep N [--dry-run]`: delete old version prefixes no kept version reads from. */
import { s3Client } from '../shim/aws/s3-client.ts';
import { parseCli } from './cli-args.ts';
import { pruneBucket } from './prune-bucket.ts';

const HELP = `Usage: npm run prune -- --bucket <name> --keep <n> [options]

Deletes old version prefixes (v/<version>/) from the bucket, keeping:
  - the version the pointer (current.json) names;
  - the newest <n> versions with a meta.json (by week, then by when meta.json was written), the serving one included;
  - every prefix a kept version reads from (a correction layer's base and every version its map names);
  - any prefix with an object younger than --min-age-hours (a publish may still be uploading it).
It refuses to delete anything when the pointer's version or a prefix a kept version reads from is missing, or a
meta.json's layer map does not parse. Deleted objects stay recoverable as noncurrent versions until the bucket's
lifecycle rule removes them (30 days in the stack). Progress and the plan go to stderr; the deleted prefixes to stdout.

Options:
  --bucket <name>        S3 bucket (required)
  --keep <n>             versions to keep, the serving one included (required, >= 1; we suggest 12: a quarter of weeks)
  --prefix <p>           key prefix in the bucket (default: none)
  --min-age-hours <h>    never delete a prefix holding an object younger than this (default 24)
  --endpoint <url>       S3-compatible endpoint, e.g. http://127.0.0.1:4568 (path-style addressing)
  --region <r>           AWS region (default: AWS_REGION, then us-east-1)
  --dry-run              print the plan, delete nothing
  -h, --help             this text

Exit status: 0 pruned (or nothing to prune); 1 failure or refusal (nothing, or only whole listed prefixes, deleted); 2 usage error.`;

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
  if (!args.bucket || !Number.isInteger(keep) || keep < 1 || !Number.isFinite(minAgeHours) || minAgeHours < 0) {
    process.stderr.write(`${!args.bucket ? '--bucket is required' : '--keep must be an integer >= 1 and --min-age-hours a number >= 0'}\n\n${HELP}\n`);
    return 2;
  }
  try {
    const client = s3Client({
      ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
      ...(args.region !== undefined ? { region: args.region } : {}),
    });
    const result = await pruneBucket({
      client,
      bucket: args.bucket,
      keep,
      minAgeMs: minAgeHours * 3_600_000,
      dryRun: args['dry-run'],
      ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
    });
    for (const r of result.remove) process.stdout.write(`${args['dry-run'] ? 'would delete' : 'deleted'} v/${r.version}/\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`prune: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
