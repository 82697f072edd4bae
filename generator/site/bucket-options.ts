/** The command-line options that name an S3 bucket, declared once for every CLI that reads or writes one. */

/** --bucket, --prefix, --endpoint and --region (shim/lib/cli-args.ts declarations); --bucket optional. */
export const BUCKET_OPTIONS = {
  bucket: {
    type: 'string',
    arg: 'name',
    description: 'S3 bucket (credentials from the usual AWS sources: environment, profile, role)',
  },
  prefix: { type: 'string', arg: 'p', description: 'key prefix in the bucket (default: none)' },
  endpoint: {
    type: 'string',
    arg: 'url',
    description: 'S3-compatible endpoint, e.g. http://127.0.0.1:4568 (path-style addressing)',
  },
  region: { type: 'string', arg: 'r', description: 'AWS region (default: AWS_REGION, then us-east-1)' },
} as const;

/** BUCKET_OPTIONS with --bucket required (the commands that only work on a bucket). */
export const REQUIRED_BUCKET_OPTIONS = {
  ...BUCKET_OPTIONS,
  bucket: { ...BUCKET_OPTIONS.bucket, required: true, description: 'S3 bucket (required)' },
} as const;
