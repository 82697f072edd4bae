/** The local server's app built from its Config: the store, service, limits, log, salt and answer cache, no socket. */
import { resolve } from 'node:path';
import { composeApp } from './compose.ts';
import type { Config } from './edge/env.ts';
import { createService } from './answer/service-impl.ts';
import type { Service } from './answer/service.ts';
import { createSiteSource, pointerEventText, type CachedSiteSource } from './search/site-reader.ts';
import type { ConnectionCaps } from './connection-limit.ts';
import { logLine, mcpErrorLog } from './edge/log-line.ts';
import type { App } from './edge/edge-types.ts';
import { AnswerCache } from './http/answer-cache.ts';
import { JsonLinesSink } from './http/jsonl-sink.ts';
import { createRequestLimits, type RequestLimits } from './http/admission.ts';
import { perWindow } from './http/rate-limit.ts';
import { MemorySaltProvider } from './http/salt.ts';
import { withDeadline } from './store/deadline.ts';
import { FolderStore } from './store/folder.ts';
import { S3Store } from './store/s3.ts';

/** Parts a caller may replace (tests, benchmarks). */
export interface ServerOverrides {
  service?: Service;
  /** The rate limits (tests give them a fixed clock). */
  limits?: RequestLimits;
  /** Header and request timeouts in milliseconds (default HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS; tests shorten them). */
  timeouts?: { headersMs: number; requestMs: number };
  /** Open connections per address and in all (default MAX_CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS). */
  connections?: Partial<ConnectionCaps>;
}

/** The app and the parts of it a running server or a test reads. */
export interface LocalApp {
  app: App;
  log: JsonLinesSink;
  answers: AnswerCache | null;
  /** The parsed-object cache (null when a service was injected). */
  source: CachedSiteSource | null;
  limits: RequestLimits;
}

/** Build the app of `config` with links under `publicBaseUrl`. */
export function createLocalApp(config: Config, publicBaseUrl: string, overrides: ServerOverrides = {}): LocalApp {
  const raw =
    config.siteBucket === null
      ? new FolderStore(resolve(config.siteDir))
      : new S3Store({ ...config.siteBucket, forcePathStyle: config.siteBucket.endpoint !== undefined });
  const store = withDeadline(raw, config.storeTimeoutMs);
  const source =
    overrides.service === undefined
      ? createSiteSource(store, { cacheBytes: config.cacheBytes, onPointer: (e) => logLine(pointerEventText(e)) })
      : null;
  const service = overrides.service ?? createService(source as CachedSiteSource);
  const log = new JsonLinesSink(resolve(config.logDir));
  const limits =
    overrides.limits ??
    createRequestLimits({
      limit: perWindow(config.rateLimitPerHour, config.rateLimitWindowSeconds),
      windowSeconds: config.rateLimitWindowSeconds,
    });
  const salt = new MemorySaltProvider();
  const answers = config.answerCacheBytes > 0 ? new AnswerCache(config.answerCacheBytes) : null;
  const app = composeApp({
    service,
    publicBaseUrl,
    allowedOrigins: config.allowedOrigins,
    correctionsEmail: config.correctionsEmail,
    limits,
    log,
    salt,
    onMcpError: mcpErrorLog((message) => logLine(`[shim] mcp: ${message}`)),
    answers,
  });
  return { app, log, answers, source, limits };
}
