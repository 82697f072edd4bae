/**
 * The Lambda handler's composition: origin-secret check, Function URL event -> plain request, the same app as the
 * local server (REST, MCP, redirects) over the S3 store, plain answer -> result. shim/aws/lambda.ts builds it at cold start.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { composeApp } from '../compose.ts';
import { ApiError } from '../contract/errors.ts';
import { createService } from '../answer/service-impl.ts';
import type { Service } from '../answer/service.ts';
import type { App, RequestLogSink, SaltProvider } from '../edge/edge-types.ts';
import { renderProblem } from '../http/problem.ts';
import { createRequestLimits } from '../http/admission.ts';
import { perWindow } from '../http/rate-limit.ts';
import { createSiteSource, pointerEventText } from '../search/site-reader.ts';
import { errorText, logJson, mcpErrorLog } from '../edge/log-line.ts';
import { withDeadline } from '../store/deadline.ts';
import { runWithDeadline } from '../store/request-deadline.ts';
import { DEFAULT_STORE_TIMEOUT_MS } from '../store/deadline.ts';
import type { Store } from '../store/types.ts';
import { ORIGIN_VERIFY_HEADER, VIEWER_HOST_HEADER, type LambdaEnv } from '../edge/env.ts';
import {
  answerToResult,
  eventToPlain,
  fitsPayload,
  FUNCTION_URL_PAYLOAD_MAX_BYTES,
  viewerAddress,
  type FunctionUrlEvent,
  type FunctionUrlResult,
} from './event.ts';
import { isCompressible } from '../http/compress.ts';
import type { Answer } from '../edge/edge-types.ts';
import { StdoutJsonSink } from './log-sink.ts';
import { lazyS3Store, lazySaltProvider } from './lazy-s3.ts';

/** A Function URL handler. */
export type FunctionUrlHandler = (event: FunctionUrlEvent) => Promise<FunctionUrlResult>;

/** Parts a test may replace; each defaults to the AWS one built from the environment. */
export interface HandlerDeps {
  store?: Store;
  service?: Service;
  salt?: SaltProvider;
  log?: RequestLogSink;
}

/** The CloudFront-only headers the app never sees. */
const DROPPED = [ORIGIN_VERIFY_HEADER, VIEWER_HOST_HEADER];

const HOST_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

/** True when `presented` equals one of `accepted`; compares fixed-length digests in constant time and checks every one. */
export function originVerified(presented: string | undefined, accepted: readonly string[]): boolean {
  const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
  const given = digest(presented ?? '');
  let match = false;
  for (const secret of accepted) match = timingSafeEqual(given, digest(secret)) || match;
  return presented !== undefined && presented !== '' && match;
}

/** A problem the handler answers itself (before or around the app), rendered like every other: renderProblem. */
function problem(error: ApiError, publicBaseUrl: string): FunctionUrlResult {
  const { status, headers, body } = renderProblem(error, 'lambda', publicBaseUrl);
  return { statusCode: status, headers, body, isBase64Encoded: false };
}

/**
 * The problem for an answer too large for one Function URL result: a caller who did not accept a compressed body is
 * told to ask for one (a 400 naming Accept-Encoding; the largest published object, the manifest of a million-office
 * version, is 7.5 MB as JSON and 2.6 MB gzipped); an answer still too large compressed is the service's failure.
 */
function tooLarge(answer: Answer): ApiError {
  const bytes = answer.body?.byteLength ?? 0;
  const limit = `${FUNCTION_URL_PAYLOAD_MAX_BYTES / (1024 * 1024)} MiB`;
  if (answer.headers['content-encoding'] === undefined && isCompressible(answer.headers['content-type'] ?? null))
    return new ApiError(
      'bad_request',
      `This answer is ${bytes} bytes, more than the ${limit} one answer of this service can carry uncompressed. Ask again with Accept-Encoding: gzip or br.`,
      { parameter: 'Accept-Encoding', accepted: ['gzip', 'br'] },
    );
  return new ApiError(
    'internal_error',
    `This answer is larger than the ${limit} one answer of this service can carry, even compressed. Please report it.`,
  );
}

/** Build the handler for `env`. Loads and creates no S3 client: the first request's first read does (lazy-s3.ts). */
export function createHandler(env: LambdaEnv, deps: HandlerDeps = {}): FunctionUrlHandler {
  const s3 = { region: env.region, ...(env.s3Endpoint !== null ? { endpoint: env.s3Endpoint } : {}) };
  const store =
    deps.store ??
    withDeadline(lazyS3Store({ bucket: env.siteBucket, prefix: env.sitePrefix, ...s3 }), DEFAULT_STORE_TIMEOUT_MS);
  const service =
    deps.service ??
    createService(
      createSiteSource(store, {
        cacheBytes: env.cacheBytes,
        onPointer: (e) => logJson({ type: 'pointer', message: pointerEventText(e) }),
      }),
    );
  const salt = deps.salt ?? lazySaltProvider({ bucket: env.saltBucket, ...s3 });
  const log = deps.log ?? new StdoutJsonSink();
  // One limiter for every host: the count is per address. WAF enforces the limit shared by all instances.
  // Counted and advertised in the WAF rule's window, so the headers state the policy WAF enforces.
  const limits = createRequestLimits({
    limit: perWindow(env.rateLimitPerHour, env.rateLimitWindowSeconds),
    windowSeconds: env.rateLimitWindowSeconds,
  });
  // One app for every host: each request names its public base (RequestInfo.publicBaseUrl); this one is the fallback.
  const app: App = composeApp({
    service,
    publicBaseUrl: env.publicBaseUrl ?? 'https://localhost',
    allowedOrigins: env.allowedOrigins,
    correctionsEmail: env.correctionsEmail,
    limits,
    log,
    salt,
    onMcpError: mcpErrorLog((message) => logJson({ type: 'mcp_error', message })),
  });

  // One deadline for all the store reads of an invocation, well inside the function's timeout (infra/api-function.ts).
  return (event) => runWithDeadline(DEFAULT_STORE_TIMEOUT_MS, () => handle(event));

  async function handle(event: FunctionUrlEvent): Promise<FunctionUrlResult> {
    const headers = event.headers ?? {};
    const viewerHost = headers[VIEWER_HOST_HEADER]?.toLowerCase();
    const host = viewerHost !== undefined && HOST_RE.test(viewerHost) ? viewerHost : event.requestContext.domainName;
    const publicBaseUrl = env.publicBaseUrl ?? `https://${host}`;
    if (!originVerified(headers[ORIGIN_VERIFY_HEADER], env.originSecrets)) {
      return problem(
        new ApiError(
          'origin_not_allowed',
          "This origin answers only requests relayed by the service's CloudFront distribution.",
        ),
        publicBaseUrl,
      );
    }
    const clientAddress = viewerAddress(headers['cloudfront-viewer-address']) ?? event.requestContext.http.sourceIp;
    try {
      const request = eventToPlain(event, { clientAddress, publicBaseUrl, dropHeaders: DROPPED });
      // Function URL bodies of an encoded answer go out base64 (answerToResult), as Lambda requires for binary.
      const answer = await app(request);
      const result = answerToResult(answer);
      if (fitsPayload(result)) return result;
      logJson({ type: 'answer_too_large', path: request.path, body_bytes: answer.body?.byteLength ?? 0 });
      return problem(tooLarge(answer), publicBaseUrl);
    } catch (err) {
      logJson({ type: 'handler_error', message: errorText(err) });
      return problem(
        new ApiError('internal_error', 'The service failed to answer this request. Please retry later.'),
        publicBaseUrl,
      );
    }
  }
}
