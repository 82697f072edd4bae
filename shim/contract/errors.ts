/**
 * The error taxonomy of the service: ApiError for what the caller can read and act on, StoreError for a failed read
 * of the published data. Everything else is a bug. Mapped to HTTP once, at the edge (shim/http/problem.ts).
 */
import type { ZodType } from 'zod';
import type { ProblemCodeT, ProblemT } from './schemas.ts';

/** One place an ambiguous name may mean: city, USPS state, and whether a measured metro contains it. */
export type CandidateT = NonNullable<ProblemT['candidates']>[number];

const TITLES: Record<ProblemCodeT, string> = {
  location_required: 'Location required',
  location_not_understood: 'Location not understood',
  ambiguous_location: 'Ambiguous location',
  invalid_parameter: 'Invalid parameter',
  unknown_parameter: 'Unknown parameter',
  practice_area_unsupported: 'Practice area not supported',
  not_found: 'Not found',
  rate_limited: 'Too many requests',
  service_unavailable: 'Service unavailable',
  method_not_allowed: 'Method not allowed',
  origin_not_allowed: 'Origin not allowed',
  payload_too_large: 'Request body too large',
  bad_request: 'Bad request',
  request_timeout: 'Request timeout',
  header_fields_too_large: 'Request headers too large',
  expectation_failed: 'Expectation failed',
  not_implemented: 'Not implemented',
  internal_error: 'Internal error',
};

const STATUS: Record<ProblemCodeT, number> = {
  location_required: 400,
  location_not_understood: 400,
  ambiguous_location: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  practice_area_unsupported: 400,
  not_found: 404,
  rate_limited: 429,
  service_unavailable: 503,
  method_not_allowed: 405,
  origin_not_allowed: 403,
  payload_too_large: 413,
  bad_request: 400,
  request_timeout: 408,
  header_fields_too_large: 431,
  expectation_failed: 417,
  not_implemented: 501,
  internal_error: 500,
};

/**
 * Base of every problem `type` URI; a code's page is `${PROBLEM_TYPE_BASE}/${code}`. A relative reference, so it
 * resolves on whichever host answered; the app makes it absolute on its public base URL.
 */
export const PROBLEM_TYPE_BASE = '/problems';

/** Seconds a client should wait before retrying after a store failure. */
export const STORE_RETRY_AFTER_SECONDS = 30;

/** A problem the caller can read: code, human detail, and optionally the parameter, accepted values and a retry delay. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ProblemCodeT;
  readonly detail: string;
  readonly extra: { parameter?: string; accepted?: string[]; retryAfterSeconds?: number; candidates?: CandidateT[] };
  constructor(
    code: ProblemCodeT,
    detail: string,
    extra: { parameter?: string; accepted?: string[]; retryAfterSeconds?: number; candidates?: CandidateT[] } = {},
  ) {
    super(detail);
    this.code = code;
    this.detail = detail;
    this.extra = extra;
    this.name = 'ApiError';
    this.status = STATUS[code];
  }

  /** RFC 9457 body. */
  toProblem(): ProblemT {
    return {
      type: `${PROBLEM_TYPE_BASE}/${this.code}`,
      title: TITLES[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.extra.parameter !== undefined ? { parameter: this.extra.parameter } : {}),
      ...(this.extra.accepted !== undefined ? { accepted: this.extra.accepted } : {}),
      ...(this.extra.candidates !== undefined ? { candidates: this.extra.candidates } : {}),
    };
  }
}

/** The store could not answer (I/O error, timeout, corrupt object, or an object the version should hold is missing). 503 at the edge. */
export class StoreError extends Error {
  readonly key: string;
  constructor(message: string, key: string, options?: { cause?: unknown }) {
    super(message, options);
    this.key = key;
    this.name = 'StoreError';
  }
}

/**
 * `value` checked with `schema`, or a StoreError for `key` saying "<subject> does not match its schema at <path>:
 * <zod's message>" (subject: the key itself, or what in it was checked).
 */
export function checkStored<T>(schema: ZodType<T>, value: unknown, key: string, subject = key): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new StoreError(
      `${subject} does not match its schema${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`,
      key,
    );
  }
  return result.data;
}

/** Any thrown value as the ApiError the caller sees: itself, 503 for a StoreError, a generic 500 for anything else. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreError) {
    return new ApiError(
      'service_unavailable',
      `The directory data could not be read just now; nothing was found or ruled out and no partial answer is given. Retry after ${STORE_RETRY_AFTER_SECONDS} seconds.`,
      { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS },
    );
  }
  return new ApiError('internal_error', 'The service failed to answer this request. Please retry later.');
}
