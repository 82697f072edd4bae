/**
 * The page behind every problem `type` URI ({base}/problems/{code}): what the problem means and what to do, as short
 * HTML. The one source: the shim renders them at /problems/{code}, and no version holds a copy (versions published
 * before this kept `problems/<code>.html`, which nothing reads).
 */
import { esc, shell } from './page-layout.ts';
import { SERVICE_NAME } from '../contract/constants.ts';
import { ApiError } from '../contract/errors.ts';
import { ProblemCode, type ProblemCodeT } from '../contract/schemas.ts';

/** Path of the page of `code` under the public base URL. */
export const problemPath = (code: ProblemCodeT): string => `/problems/${code}`;

/** The absolute problem `type` URI of `code` for a service at `publicBaseUrl`. */
export function problemTypeUri(publicBaseUrl: string, code: ProblemCodeT): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${problemPath(code)}`;
}

/** Every problem code, in the schema's order. */
export const PROBLEM_CODES: readonly ProblemCodeT[] = ProblemCode.options;

/** True when `value` is a problem code (a caller-supplied path segment). */
export function isProblemCode(value: string): value is ProblemCodeT {
  return (PROBLEM_CODES as readonly string[]).includes(value);
}

const EXPLAIN: Record<ProblemCodeT, { meaning: string; action: string }> = {
  location_required: {
    meaning:
      'A search needs exactly one location: location (a ZIP, ZIP+4, "City, ST" or "lat,lng"), zip, or lat with lng. None was sent, or more than one form was.',
    action: 'Send one location form, for the place of the person who needs a lawyer.',
  },
  location_not_understood: {
    meaning:
      'The location could not be resolved: an unknown ZIP, a city not found in that state, or coordinates out of range.',
    action:
      'Check the spelling and the two-letter state code, or send the ZIP or coordinates instead. The detail names what was not understood.',
  },
  ambiguous_location: {
    meaning: 'The location could stand for more than one place.',
    action: 'Add the state ("City, ST") or send a ZIP.',
  },
  invalid_parameter: {
    meaning:
      'A parameter has a value outside what it accepts (for example radius_miles outside 1..50 or limit outside 1..25).',
    action: 'Send a value within the bounds the detail names, or leave the parameter out to get its default.',
  },
  unknown_parameter: {
    meaning:
      'The request carries a parameter the endpoint does not know (often a typo such as radius= for radius_miles=). It is refused rather than silently ignored.',
    action: "Use one of the accepted parameter names listed in the problem's accepted field.",
  },
  practice_area_unsupported: {
    meaning: 'The directory lists personal injury law offices only.',
    action: 'Leave practice_area out, or send personal_injury.',
  },
  not_found: {
    meaning: 'There is nothing at this path, or no listing with this id in the version being served.',
    action:
      'Use a listing_id exactly as a search returned it; listings can leave the directory from one week to the next. See /openapi.json for the paths.',
  },
  rate_limited: {
    meaning:
      'Too many requests came from your network address within the advertised window (REST and MCP calls together). The RateLimit-Policy header states the quota.',
    action:
      'Wait the number of seconds in Retry-After, then retry. Copying the directory in bulk is against the terms of use.',
  },
  service_unavailable: {
    meaning: 'The published directory data could not be read just now. No partial answer is ever given in its place.',
    action: 'Retry after the number of seconds in Retry-After.',
  },
  method_not_allowed: {
    meaning: 'The path does not accept this HTTP method.',
    action: 'Use a method named in the Allow header (GET for the REST endpoints, POST for /mcp).',
  },
  origin_not_allowed: {
    meaning:
      "The request came from a browser origin that may not call this endpoint, or did not come through the service's own front door.",
    action: 'Call the endpoint from a server, or ask the operator to allow your origin.',
  },
  payload_too_large: {
    meaning: 'The request body is larger than the endpoint accepts.',
    action: 'Send one small JSON-RPC message per request.',
  },
  bad_request: {
    meaning:
      'The request is not valid HTTP/1.1: a malformed request line (for example a control byte in the path), a missing Host header, or headers the server cannot parse. Nothing was processed.',
    action: 'Send a well-formed request; an HTTP client library does this for you.',
  },
  request_timeout: {
    meaning:
      'The request was not received completely in time: the headers must arrive within 10 seconds of the connection, and the whole request within 30 seconds.',
    action: 'Retry; send the whole request without pausing.',
  },
  header_fields_too_large: {
    meaning: 'The request headers are larger than the server accepts.',
    action: 'Send fewer or shorter headers (cookies are never needed).',
  },
  expectation_failed: {
    meaning:
      'The request carries an Expect header the server cannot meet; the only expectation HTTP/1.1 defines is 100-continue.',
    action: 'Leave the Expect header out, or send Expect: 100-continue.',
  },
  not_implemented: {
    meaning: 'This server does not offer the endpoint (for example a deployment without MCP).',
    action: 'Use the REST endpoints described in /openapi.json.',
  },
  internal_error: {
    meaning: 'The service failed to answer for a reason of its own; nothing about the request is wrong.',
    action: 'Retry later. If it persists, tell the operator (see the corrections page).',
  },
};

/** The HTML page of `code`: status, title, meaning, what to do, in the site's shell. Deterministic. */
export function problemPageHtml(code: ProblemCodeT): string {
  const { title, status } = new ApiError(code, '').toProblem();
  const { meaning, action } = EXPLAIN[code];
  const main = [
    `<h1>${esc(title)}</h1>`,
    `<p class="lede">HTTP status <strong>${status}</strong>, problem code <code>${esc(code)}</code>.</p>`,
    `<h2>What it means</h2>\n<p>${esc(meaning)}</p>`,
    `<h2>What to do</h2>\n<p>${esc(action)}</p>`,
    '<p>Errors are RFC 9457 problem details (<code>application/problem+json</code>) whose <code>type</code> is this page; ' +
      'the <code>detail</code> field says what exactly was wrong. The API is described at <a href="/openapi.json">/openapi.json</a> ' +
      'and in <a href="/docs">the API reference</a>.</p>',
  ].join('\n');
  return shell({
    title: `${title} (${status}) – ${SERVICE_NAME}`,
    description: `What the ${code} problem of the ${SERVICE_NAME} API means and what to do.`,
    path: problemPath(code),
    main,
  });
}
