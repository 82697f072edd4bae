/** A fetch wrapper for API tests: no redirects followed, no stack traces allowed, bodies checked against openapi.json. */
import { expect } from 'vitest';
import { inProcessApp } from './app.ts';
import type { ResponseSchemas } from './openapi.ts';

/** What a stack trace or internal path in a body looks like. */
export const STACK_TRACE_RE =
  /\n\s+at\s|\bat [\w$.<>]+ \(|\.(?:ts|js|mjs):\d+:\d+|node:internal|node_modules|\bTypeError\b|\bReferenceError\b|StoreError/;

/** One response, read. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
}

/**
 * Fetch `path` from `baseUrl` (over a socket, or in-process for an app of startTestApp); asserts no stack trace and,
 * when `schemas` is given, that the body matches its documented schema.
 */
export async function request(
  baseUrl: string,
  path: string,
  init: RequestInit = {},
  schemas?: ResponseSchemas,
): Promise<Reply> {
  const app = inProcessApp(baseUrl);
  const res =
    app !== undefined ? await app.fetch(path, init) : await fetch(baseUrl + path, { redirect: 'manual', ...init });
  const text = await res.text();
  expect(text, `stack trace in the body of ${path}`).not.toMatch(STACK_TRACE_RE);
  const contentType = res.headers.get('content-type');
  const body: unknown = text !== '' && (contentType ?? '').includes('json') ? JSON.parse(text) : undefined;
  const pathname = new URL(baseUrl + path).pathname;
  const method = (init.method ?? 'GET').toUpperCase();
  if (
    schemas !== undefined &&
    body !== undefined &&
    pathname !== '/' &&
    !(pathname === '/openapi.json' && res.status === 200)
  ) {
    expect(
      schemas.check(method, pathname, res.status, contentType, body),
      `schema of ${method} ${path} ${res.status}`,
    ).toEqual([]);
  }
  return { status: res.status, headers: res.headers, text, body };
}
