/** The one error type the core throws for a caller's mistake or a store failure; mapped to HTTP once, at the edge. */
import type { ProblemCodeT, ProblemT } from './schemas.ts';

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
  internal_error: 500,
};

/** A problem the caller can read: code, human detail, and optionally the parameter and accepted values. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCodeT,
    readonly detail: string,
    readonly extra: { parameter?: string; accepted?: string[] } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }

  /** RFC 9457 body. */
  toProblem(): ProblemT {
    return {
      type: `https://injury-attorney-directory.example/problems/${this.code}`,
      title: TITLES[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.extra.parameter !== undefined ? { parameter: this.extra.parameter } : {}),
      ...(this.extra.accepted !== undefined ? { accepted: this.extra.accepted } : {}),
    };
  }
}
