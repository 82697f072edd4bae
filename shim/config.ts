/** The local server's settings, parsed once from the environment at start-up. */
import { isIP } from 'node:net';
import { z } from 'zod';
import { allowedOriginsField, answerCacheMibField, blankIsUnset, cacheMibField, correctionsEmailField, rateLimitField, rateLimitWindowField, storeTimeoutField } from './env-fields.ts';
import { REQUESTS_PER_HOUR } from './core/constants.ts';
import { DEFAULT_ANSWER_CACHE_MIB } from './http/answer-cache.ts';
import { DEFAULT_STORE_TIMEOUT_MS } from './store/deadline.ts';

const bool = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes'),
);


const Env = z.object({
  PORT: z.preprocess(blankIsUnset, z.coerce.number().int().min(0).max(65535).default(8787)),
  HOST: z.preprocess(blankIsUnset, z.string().refine((h) => h === 'localhost' || isIP(h) !== 0, 'must be an IP address or localhost').default('127.0.0.1')),
  PUBLIC_BASE_URL: z.preprocess(
    blankIsUnset,
    z.url({ protocol: /^https?$/ }).refine((u) => !new URL(u).search && !new URL(u).hash, 'must not carry a query or fragment').optional(),
  ),
  SITE_DIR: z.preprocess(blankIsUnset, z.string().default('site')),
  SITE_BUCKET: z.preprocess(blankIsUnset, z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name').optional()),
  SITE_PREFIX: z.preprocess(blankIsUnset, z.string().optional()),
  SITE_S3_ENDPOINT: z.preprocess(blankIsUnset, z.url({ protocol: /^https?$/ }).optional()),
  DATA_DIR: z.preprocess(blankIsUnset, z.string().default('data')),
  LOG_DIR: z.preprocess(blankIsUnset, z.string().default('var/log')),
  RATE_LIMIT_PER_HOUR: rateLimitField,
  RATE_LIMIT_WINDOW_SECONDS: rateLimitWindowField,
  CORRECTIONS_EMAIL: correctionsEmailField,
  TRUST_PROXY: z.preprocess(
    blankIsUnset,
    z.union([bool.transform((on) => (on ? 1 : 0)), z.coerce.number().int().min(0).max(10)], {
      error: 'must be false, true (one proxy) or the number of trusted proxies in front of the server (0-10)',
    }).default(0),
  ),
  ALLOWED_ORIGINS: allowedOriginsField,
  CACHE_MIB: cacheMibField,
  ANSWER_CACHE_MIB: answerCacheMibField,
  STORE_TIMEOUT_MS: storeTimeoutField,
});

/** Names of the environment variables read, with what each means (for --help). */
export const ENV_HELP: Record<keyof z.infer<typeof Env>, string> = {
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
  CORRECTIONS_EMAIL: 'address for corrections and questions, the OpenAPI contact (default corrections@injury-attorney-directory.example)',
  RATE_LIMIT_WINDOW_SECONDS: 'window the limit is counted and advertised in; the hourly quota is scaled to it (default 3600; must divide 3600)',
  TRUST_PROXY: 'number of trusted proxies in front of the server (true = 1): the client address is the X-Forwarded-For entry that many from the right, the one your own proxy appended (default false = the socket peer)',
  ALLOWED_ORIGINS: 'comma-separated browser origins allowed to call /mcp (default none)',
  CACHE_MIB: 'memory for parsed site objects and their search columns, in MiB held (estimated; default 64; an object larger than this is read on every query)',
  ANSWER_CACHE_MIB: `memory for finished /v1/attorneys answers (all encodings), per query and published version, in MiB (default ${DEFAULT_ANSWER_CACHE_MIB}; 0 turns the cache off)`,
  STORE_TIMEOUT_MS: `how long one read of the site (folder or bucket) may take before the request needing it answers 503 with Retry-After, in ms (default ${DEFAULT_STORE_TIMEOUT_MS})`,
};

/** Parsed settings. Directories are as given (relative to the working directory). */
export interface Config {
  port: number;
  host: string;
  /** Without trailing slash; null means "http://HOST:PORT of the bound socket". */
  publicBaseUrl: string | null;
  siteDir: string;
  /** Serve from this bucket instead of siteDir (null: the folder). */
  siteBucket: { bucket: string; prefix?: string; endpoint?: string } | null;
  dataDir: string;
  logDir: string;
  /** Requests per hour per address; 0 disables the limit. */
  rateLimitPerHour: number;
  /** Window the limit is counted and advertised in, in seconds (divides 3600). */
  rateLimitWindowSeconds: number;
  /** Contact address in the served OpenAPI document; null means the default. */
  correctionsEmail: string | null;
  /** Trusted proxies in front of the server; 0 means the socket peer is the client. */
  proxyHops: number;
  allowedOrigins: string[];
  /** Budget of the parsed-object cache, in bytes of stored JSON. */
  cacheBytes: number;
  /** Budget of the answer cache, in bytes of headers and encoded bodies; 0 disables it. */
  answerCacheBytes: number;
  /** Deadline of one store read, in milliseconds. */
  storeTimeoutMs: number;
}

/** Thrown by loadConfig with a message naming each bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parse the environment once; throws ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `  ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL === undefined ? null : e.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    siteDir: e.SITE_DIR,
    siteBucket:
      e.SITE_BUCKET === undefined
        ? null
        : { bucket: e.SITE_BUCKET, ...(e.SITE_PREFIX !== undefined ? { prefix: e.SITE_PREFIX } : {}), ...(e.SITE_S3_ENDPOINT !== undefined ? { endpoint: e.SITE_S3_ENDPOINT } : {}) },
    dataDir: e.DATA_DIR,
    logDir: e.LOG_DIR,
    rateLimitPerHour: e.RATE_LIMIT_PER_HOUR,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    correctionsEmail: e.CORRECTIONS_EMAIL ?? null,
    proxyHops: e.TRUST_PROXY,
    cacheBytes: e.CACHE_MIB * 1024 * 1024,
    answerCacheBytes: e.ANSWER_CACHE_MIB * 1024 * 1024,
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
    allowedOrigins: e.ALLOWED_ORIGINS,
  };
}
