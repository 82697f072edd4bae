/** The Lambda handler's settings, parsed once with zod at cold start; a bad value fails the start with every problem named. */
import { z } from 'zod';
import { allowedOriginsField, blankIsUnset, cacheMibField, correctionsEmailField, rateLimitField, rateLimitWindowField } from '../env-fields.ts';
import { REQUESTS_PER_HOUR } from '../core/constants.ts';

/** Header CloudFront adds to every origin request; the handler answers 403 without it (set on the origin, never by viewers). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
/** Header a CloudFront Function sets from the viewer's Host, so links can name the public host (the Function URL sees its own). */
export const VIEWER_HOST_HEADER = 'x-viewer-host';
/** Shortest accepted origin secret, in characters. */
export const MIN_SECRET_LENGTH = 32;


// S3 bucket naming rules (general purpose buckets): 3-63 lowercase letters, digits, dots and hyphens.
const bucketName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)');

const prefix = z
  .string()
  .refine((p) => !p.startsWith('/') && !p.includes('..') && !p.includes('\\'), 'must be a relative key prefix such as "prod/"');


const Env = z.object({
  SITE_BUCKET: bucketName,
  SITE_PREFIX: z.preprocess(blankIsUnset, prefix.default('')),
  SALT_BUCKET: bucketName,
  ORIGIN_VERIFY_SECRETS: z
    .string({ error: 'is required (comma-separated; CloudFront sends the first, every one is accepted)' })
    .transform((s) => s.split(',').map((v) => v.trim()).filter((v) => v !== ''))
    .pipe(
      z
        .array(z.string().min(MIN_SECRET_LENGTH, `each secret must have at least ${MIN_SECRET_LENGTH} characters`))
        .min(1, 'must hold at least one secret')
        .max(3, 'at most three secrets (current, previous and one being introduced)'),
    ),
  PUBLIC_BASE_URL: z.preprocess(
    blankIsUnset,
    z
      .url({ protocol: /^https?$/ })
      .refine((u) => !new URL(u).search && !new URL(u).hash, 'must not carry a query or fragment')
      .optional(),
  ),
  RATE_LIMIT_PER_HOUR: rateLimitField,
  RATE_LIMIT_WINDOW_SECONDS: rateLimitWindowField,
  CORRECTIONS_EMAIL: correctionsEmailField,
  ALLOWED_ORIGINS: allowedOriginsField,
  CACHE_MIB: cacheMibField,
  AWS_REGION: z.preprocess(blankIsUnset, z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1').default('us-east-1')),
  S3_ENDPOINT: z.preprocess(blankIsUnset, z.url({ protocol: /^https?$/ }).optional()),
});

/** Parsed settings of the Lambda handler. */
export interface LambdaEnv {
  siteBucket: string;
  sitePrefix: string;
  /** Bucket of the daily salts, kept at private/salt/<day> (see shim/aws/salt.ts). */
  saltBucket: string;
  /** Accepted values of the origin header; CloudFront sends the first. */
  originSecrets: string[];
  /** Without trailing slash; null means https://<viewer host> from the CloudFront Function's header. */
  publicBaseUrl: string | null;
  /** Per-instance request limit per address and hour (WAF enforces the shared one); 0 disables. */
  rateLimitPerHour: number;
  /** Window the limit is counted and advertised in (the WAF rule's evaluation window on AWS). */
  rateLimitWindowSeconds: number;
  /** Contact address in the served OpenAPI document; null means the default. */
  correctionsEmail: string | null;
  allowedOrigins: string[];
  /** Budget of the parsed-object cache, in bytes of stored JSON. */
  cacheBytes: number;
  region: string;
  /** Custom S3 endpoint (an S3-protocol server in tests); null on AWS. */
  s3Endpoint: string | null;
}

/** Names of the variables read, with what each means (for DEPLOY.md and error messages). */
export const LAMBDA_ENV_HELP: Record<keyof z.infer<typeof Env>, string> = {
  SITE_BUCKET: 'bucket holding current.json and v/<version>/ (required)',
  SITE_PREFIX: 'key prefix the site was published under (default: bucket root)',
  SALT_BUCKET: 'bucket of the daily salts, kept at private/salt/<day> (required; unversioned, objects expire after 1 day)',
  ORIGIN_VERIFY_SECRETS: `comma-separated values accepted in ${ORIGIN_VERIFY_HEADER} (required; at least ${MIN_SECRET_LENGTH} characters each)`,
  PUBLIC_BASE_URL: 'absolute base URL for `website` links (default https://<viewer host>)',
  RATE_LIMIT_PER_HOUR: `answers (API and tool calls) per hour per address counted by one instance, every request held to ten times it (default ${REQUESTS_PER_HOUR}; WAF enforces the shared limit)`,
  CORRECTIONS_EMAIL: 'address for corrections and questions, the OpenAPI contact (default corrections@injury-attorney-directory.example)',
  RATE_LIMIT_WINDOW_SECONDS: "window the limit is counted and advertised in, the WAF rule's evaluation window (default 3600; must divide 3600)",
  ALLOWED_ORIGINS: 'comma-separated browser origins allowed to call /mcp (default none)',
  CACHE_MIB: 'memory for parsed site objects and their search columns, in MiB held (estimated; default 64; keep well under the function memory)',
  AWS_REGION: 'region of the buckets (set by Lambda)',
  S3_ENDPOINT: 'custom S3 endpoint, tests only (default: AWS)',
};

/** Thrown at cold start with a message naming each bad variable. */
export class LambdaEnvError extends Error {
  override readonly name = 'LambdaEnvError';
}

/** Parse the environment; throws LambdaEnvError listing every bad variable (secret values are never echoed). */
export function loadLambdaEnv(env: Record<string, string | undefined> = process.env): LambdaEnv {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const raw = env[name];
      const shown = name === 'ORIGIN_VERIFY_SECRETS' ? (raw === undefined ? 'unset' : '<hidden>') : raw === undefined ? 'unset' : JSON.stringify(raw);
      return `  ${name} (${shown}): ${issue.message}`;
    });
    throw new LambdaEnvError(`Invalid Lambda environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    siteBucket: e.SITE_BUCKET,
    sitePrefix: e.SITE_PREFIX,
    saltBucket: e.SALT_BUCKET,
    originSecrets: e.ORIGIN_VERIFY_SECRETS,
    publicBaseUrl: e.PUBLIC_BASE_URL === undefined ? null : e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    rateLimitPerHour: e.RATE_LIMIT_PER_HOUR,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    correctionsEmail: e.CORRECTIONS_EMAIL ?? null,
    allowedOrigins: e.ALLOWED_ORIGINS,
    cacheBytes: e.CACHE_MIB * 1024 * 1024,
    region: e.AWS_REGION,
    s3Endpoint: e.S3_ENDPOINT ?? null,
  };
}
