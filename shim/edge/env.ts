/**
 * The environment of the Node server (loadConfig) and the Lambda (loadLambdaEnv), parsed once at start with zod: one
 * schema of the fields both read, each side's own fields beside it, and one formatter naming every bad variable.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { REQUESTS_PER_HOUR } from '../contract/constants.ts';
import { DEFAULT_STORE_TIMEOUT_MS, LAMBDA_TIMEOUT_SECONDS } from '../store/deadline.ts';
import { DEFAULT_ANSWER_CACHE_MIB, DEFAULT_CACHE_MIB } from './limits.ts';

/** An empty or blank variable counts as unset (so its default applies). */
export const blankIsUnset = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const origin = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}, 'each origin must look like https://example.com (scheme, host and optional port, nothing else)');

/** RATE_LIMIT_PER_HOUR: requests per hour per address, default REQUESTS_PER_HOUR, 0 disables. */
export const rateLimitField = z.preprocess(
  blankIsUnset,
  z.coerce.number().int().min(0).max(10_000_000).default(REQUESTS_PER_HOUR),
);

/**
 * RATE_LIMIT_WINDOW_SECONDS: the window the limit is counted and advertised in, default 3600. A shorter window (AWS
 * WAF counts in 60..600 s) scales the hourly quota down to it, so it must divide an hour evenly.
 */
export const rateLimitWindowField = z.preprocess(
  blankIsUnset,
  z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .refine((w) => 3600 % w === 0, 'must divide 3600 evenly (e.g. 60, 300, 600, 3600)')
    .default(3600),
);

/** CORRECTIONS_EMAIL: the address firms and callers write to, shown as the OpenAPI contact; unset means the default. */
export const correctionsEmailField = z.preprocess(blankIsUnset, z.email('must be an email address').optional());

/** CACHE_MIB: budget of the parsed-object cache in MiB of memory held (parsed size and search columns, estimated), default DEFAULT_CACHE_MIB. */
export const cacheMibField = z.preprocess(
  blankIsUnset,
  z.coerce.number().int().min(1).max(65_536).default(DEFAULT_CACHE_MIB),
);

/** STORE_TIMEOUT_MS: how long all the store reads of one request may take before it is a 503 (100 ms - 60 s). */
export const storeTimeoutField = z.preprocess(
  blankIsUnset,
  z.coerce.number().int().min(100).max(60_000).default(DEFAULT_STORE_TIMEOUT_MS),
);

/** ANSWER_CACHE_MIB: budget of the local server's cache of finished /v1/attorneys answers, in MiB; 0 turns it off. */
export const answerCacheMibField = z.preprocess(
  blankIsUnset,
  z.coerce.number().int().min(0).max(65_536).default(DEFAULT_ANSWER_CACHE_MIB),
);

/** ALLOWED_ORIGINS: comma-separated browser origins allowed to call /mcp; parsed to a list without trailing slashes. */
export const allowedOriginsField = z.preprocess(
  blankIsUnset,
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .pipe(z.array(origin))
    .default([])
    .transform((list) => list.map((o) => o.replace(/\/$/, ''))),
);

// S3 bucket naming rules (general purpose buckets): 3-63 lowercase letters, digits, dots and hyphens.
const bucketName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)',
  );

/** PUBLIC_BASE_URL: an absolute http(s) URL without query or fragment. */
const publicBaseUrlField = z.preprocess(
  blankIsUnset,
  z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL, e.g. https://api.example.org' })
    // Refinements run after a failed URL check too: a value that is no URL is that check's message, not a throw here.
    .refine((u) => !URL.canParse(u) || (!new URL(u).search && !new URL(u).hash), 'must not carry a query or fragment')
    .optional(),
);

/** The fields the Node server and the Lambda both read, with the same rules. */
export const SharedEnv = z.object({
  PUBLIC_BASE_URL: publicBaseUrlField,
  RATE_LIMIT_PER_HOUR: rateLimitField,
  RATE_LIMIT_WINDOW_SECONDS: rateLimitWindowField,
  CORRECTIONS_EMAIL: correctionsEmailField,
  ALLOWED_ORIGINS: allowedOriginsField,
  CACHE_MIB: cacheMibField,
});

/** What loadConfig and loadLambdaEnv both return from the shared fields. */
export interface SharedSettings {
  /** Without trailing slash; null means the platform's own (the bound socket, or the viewer host). */
  publicBaseUrl: string | null;
  /** Answers per hour per address; 0 disables the limit. */
  rateLimitPerHour: number;
  /** Window the limit is counted and advertised in, in seconds (divides 3600). */
  rateLimitWindowSeconds: number;
  /** Contact address in the served OpenAPI document; null means the default. */
  correctionsEmail: string | null;
  allowedOrigins: string[];
  /** Budget of the parsed-object cache, in bytes of stored JSON. */
  cacheBytes: number;
}

function sharedSettings(e: z.infer<typeof SharedEnv>): SharedSettings {
  return {
    publicBaseUrl: e.PUBLIC_BASE_URL === undefined ? null : e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    rateLimitPerHour: e.RATE_LIMIT_PER_HOUR,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    correctionsEmail: e.CORRECTIONS_EMAIL ?? null,
    allowedOrigins: e.ALLOWED_ORIGINS,
    cacheBytes: e.CACHE_MIB * 1024 * 1024,
  };
}

/**
 * The message of a bad environment: a title, then one line per problem naming the variable and its value as sent
 * (`NAME="value"`, `NAME (unset)`, or `NAME (<hidden>)` for the names in `hidden`, whose values are secrets).
 */
export function formatEnvIssues(
  title: string,
  env: Record<string, string | undefined>,
  issues: readonly z.core.$ZodIssue[],
  hidden: readonly string[] = [],
): string {
  const lines = issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    // zod's own words for a non-number ("expected number, received NaN") say nothing a reader can act on.
    const message = issue.code === 'invalid_type' && issue.expected === 'number' ? 'must be a number' : issue.message;
    const raw = env[name];
    const shown = raw === undefined ? ' (unset)' : hidden.includes(name) ? ' (<hidden>)' : `=${JSON.stringify(raw)}`;
    return `  ${name}${shown}: ${message}`;
  });
  return `${title}:\n${lines.join('\n')}`;
}

// ---- The Node server (npm start) ----

const bool = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes'),
);

const ServerEnv = SharedEnv.extend({
  PORT: z.preprocess(blankIsUnset, z.coerce.number().int().min(0).max(65535).default(8787)),
  HOST: z.preprocess(
    blankIsUnset,
    z
      .string()
      .refine((h) => h === 'localhost' || isIP(h) !== 0, 'must be an IP address or localhost')
      .default('127.0.0.1'),
  ),
  SITE_DIR: z.preprocess(blankIsUnset, z.string().default('site')),
  SITE_BUCKET: z.preprocess(blankIsUnset, bucketName.optional()),
  SITE_PREFIX: z.preprocess(blankIsUnset, z.string().optional()),
  SITE_S3_ENDPOINT: z.preprocess(
    blankIsUnset,
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:4568' }).optional(),
  ),
  DATA_DIR: z.preprocess(blankIsUnset, z.string().default('data')),
  LOG_DIR: z.preprocess(blankIsUnset, z.string().default('var/log')),
  TRUST_PROXY: z.preprocess(
    blankIsUnset,
    z
      .union([bool.transform((on) => (on ? 1 : 0)), z.coerce.number().int().min(0).max(10)], {
        error: 'must be false, true (one proxy) or the number of trusted proxies in front of the server (0-10)',
      })
      .default(0),
  ),
  ANSWER_CACHE_MIB: answerCacheMibField,
  STORE_TIMEOUT_MS: storeTimeoutField,
});

/** Names of the environment variables read, with what each means (for --help). */
export const ENV_HELP: Record<keyof z.infer<typeof ServerEnv>, string> = {
  PORT: 'TCP port to listen on (default 8787; 0 picks a free one)',
  HOST: 'address to bind (default 127.0.0.1)',
  PUBLIC_BASE_URL: 'absolute base URL used in `website` links (default http://HOST:PORT)',
  SITE_DIR: 'folder of the generated site (default site)',
  SITE_BUCKET: 'serve straight from this S3 bucket instead of SITE_DIR (credentials from the usual AWS sources)',
  SITE_PREFIX: 'key prefix of the site in SITE_BUCKET (default none)',
  SITE_S3_ENDPOINT: 'S3-compatible endpoint for SITE_BUCKET, path-style, e.g. a loopback s3rver http://127.0.0.1:4568',
  DATA_DIR: 'folder of the generator inputs (default data)',
  LOG_DIR: 'folder of the request log, requests-YYYY-MM-DD.jsonl (default var/log)',
  RATE_LIMIT_PER_HOUR: `answers (API calls under /v1/ and /r/, MCP tool calls) per hour per network address, REST and MCP together; every request is held to ten times it (default ${REQUESTS_PER_HOUR}; 0 disables)`,
  CORRECTIONS_EMAIL:
    'address for corrections and questions, the OpenAPI contact (default corrections@injury-attorney-directory.example)',
  RATE_LIMIT_WINDOW_SECONDS:
    'window the limit is counted and advertised in; the hourly quota is scaled to it (default 3600; must divide 3600)',
  TRUST_PROXY:
    'number of trusted proxies in front of the server (true = 1): the client address is the X-Forwarded-For entry that many from the right, the one your own proxy appended (default false = the socket peer)',
  ALLOWED_ORIGINS: 'comma-separated browser origins allowed to call /mcp (default none)',
  CACHE_MIB:
    'memory for parsed site objects and their search columns, in MiB held (estimated; default 192; an object larger than this is read on every query)',
  ANSWER_CACHE_MIB: `memory for finished /v1/attorneys answers (all encodings), per query and published version, in MiB (default ${DEFAULT_ANSWER_CACHE_MIB}; 0 turns the cache off)`,
  STORE_TIMEOUT_MS: `how long all the reads of the site (folder or bucket) that one request needs may take together, from its arrival, before it answers 503 with Retry-After and the reads still running are stopped, in ms (default ${DEFAULT_STORE_TIMEOUT_MS}; the AWS function uses the default, inside its ${LAMBDA_TIMEOUT_SECONDS} s timeout)`,
};

/** The Node server's settings. Directories are as given (relative to the working directory). */
export interface Config extends SharedSettings {
  port: number;
  host: string;
  /** Without trailing slash; null means "http://HOST:PORT of the bound socket". */
  publicBaseUrl: string | null;
  siteDir: string;
  /** Serve from this bucket instead of siteDir (null: the folder). */
  siteBucket: { bucket: string; prefix?: string; endpoint?: string } | null;
  dataDir: string;
  logDir: string;
  /** Trusted proxies in front of the server; 0 means the socket peer is the client. */
  proxyHops: number;
  /** Budget of the answer cache, in bytes of headers and encoded bodies; 0 disables it. */
  answerCacheBytes: number;
  /** Deadline of all the store reads of one request together, in milliseconds. */
  storeTimeoutMs: number;
}

/** Thrown by loadConfig with a message naming each bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parse the environment once; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ServerEnv.safeParse(env);
  if (!parsed.success) throw new ConfigError(formatEnvIssues('Invalid environment', env, parsed.error.issues));
  const e = parsed.data;
  return {
    ...sharedSettings(e),
    port: e.PORT,
    host: e.HOST,
    siteDir: e.SITE_DIR,
    siteBucket:
      e.SITE_BUCKET === undefined
        ? null
        : {
            bucket: e.SITE_BUCKET,
            ...(e.SITE_PREFIX !== undefined ? { prefix: e.SITE_PREFIX } : {}),
            ...(e.SITE_S3_ENDPOINT !== undefined ? { endpoint: e.SITE_S3_ENDPOINT } : {}),
          },
    dataDir: e.DATA_DIR,
    logDir: e.LOG_DIR,
    proxyHops: e.TRUST_PROXY,
    answerCacheBytes: e.ANSWER_CACHE_MIB * 1024 * 1024,
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
  };
}

// ---- The Lambda (shim/aws) ----

/** Header CloudFront adds to every origin request; the handler answers 403 without it (set on the origin, never by viewers). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
/** Header a CloudFront Function sets from the viewer's Host, so links can name the public host (the Function URL sees its own). */
export const VIEWER_HOST_HEADER = 'x-viewer-host';
/** Shortest accepted origin secret, in characters. */
export const MIN_SECRET_LENGTH = 32;

const prefix = z
  .string()
  .refine(
    (p) => !p.startsWith('/') && !p.includes('..') && !p.includes('\\'),
    'must be a relative key prefix such as "prod/"',
  );

const LambdaEnvSchema = SharedEnv.extend({
  SITE_BUCKET: bucketName,
  SITE_PREFIX: z.preprocess(blankIsUnset, prefix.default('')),
  SALT_BUCKET: bucketName,
  ORIGIN_VERIFY_SECRETS: z
    .string({ error: 'is required (comma-separated; CloudFront sends the first, every one is accepted)' })
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    )
    .pipe(
      z
        .array(z.string().min(MIN_SECRET_LENGTH, `each secret must have at least ${MIN_SECRET_LENGTH} characters`))
        .min(1, 'must hold at least one secret')
        .max(3, 'at most three secrets (current, previous and one being introduced)'),
    ),
  AWS_REGION: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1')
      .default('us-east-1'),
  ),
  S3_ENDPOINT: z.preprocess(blankIsUnset, z.url({ protocol: /^https?$/ }).optional()),
});

/** Parsed settings of the Lambda handler. */
export interface LambdaEnv extends SharedSettings {
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
  region: string;
  /** Custom S3 endpoint (an S3-protocol server in tests); null on AWS. */
  s3Endpoint: string | null;
}

/** Names of the variables read, with what each means (for DEPLOY.md and error messages). */
export const LAMBDA_ENV_HELP: Record<keyof z.infer<typeof LambdaEnvSchema>, string> = {
  SITE_BUCKET: 'bucket holding current.json and v/<version>/ (required)',
  SITE_PREFIX: 'key prefix the site was published under (default: bucket root)',
  SALT_BUCKET:
    'bucket of the daily salts, kept at private/salt/<day> (required; unversioned, objects expire after 1 day)',
  ORIGIN_VERIFY_SECRETS: `comma-separated values accepted in ${ORIGIN_VERIFY_HEADER} (required; at least ${MIN_SECRET_LENGTH} characters each)`,
  PUBLIC_BASE_URL: 'absolute base URL for `website` links (default https://<viewer host>)',
  RATE_LIMIT_PER_HOUR: `answers (API and tool calls) per hour per address counted by one instance, every request held to ten times it (default ${REQUESTS_PER_HOUR}; WAF enforces the shared limit)`,
  CORRECTIONS_EMAIL:
    'address for corrections and questions, the OpenAPI contact (default corrections@injury-attorney-directory.example)',
  RATE_LIMIT_WINDOW_SECONDS:
    "window the limit is counted and advertised in, the WAF rule's evaluation window (default 3600; must divide 3600)",
  ALLOWED_ORIGINS: 'comma-separated browser origins allowed to call /mcp (default none)',
  CACHE_MIB:
    'memory for parsed site objects and their search columns, in MiB held (estimated; default 192; keep well under the function memory)',
  AWS_REGION: 'region of the buckets (set by Lambda)',
  S3_ENDPOINT: 'custom S3 endpoint, tests only (default: AWS)',
};

/** Thrown at cold start with a message naming each bad variable. */
export class LambdaEnvError extends Error {
  override readonly name = 'LambdaEnvError';
}

/** Parse the environment; throws LambdaEnvError listing every bad variable (secret values are never echoed). */
export function loadLambdaEnv(env: Record<string, string | undefined> = process.env): LambdaEnv {
  const parsed = LambdaEnvSchema.safeParse(env);
  if (!parsed.success)
    throw new LambdaEnvError(
      formatEnvIssues('Invalid Lambda environment', env, parsed.error.issues, ['ORIGIN_VERIFY_SECRETS']),
    );
  const e = parsed.data;
  return {
    ...sharedSettings(e),
    siteBucket: e.SITE_BUCKET,
    sitePrefix: e.SITE_PREFIX,
    saltBucket: e.SALT_BUCKET,
    originSecrets: e.ORIGIN_VERIFY_SECRETS,
    region: e.AWS_REGION,
    s3Endpoint: e.S3_ENDPOINT ?? null,
  };
}
