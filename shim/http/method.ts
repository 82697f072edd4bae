/** Request methods that a web-standard Request refuses to carry, so platform adapters pass them beside it. */

/** Methods the Fetch standard forbids in `new Request()` (it throws on them). */
const FORBIDDEN = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * The method to build the web Request with, and the RequestInfo field that carries the real one when they differ.
 * A forbidden method travels as a bodiless GET plus `info.method`, so the app still answers it (405) and logs it.
 */
export function webMethod(method: string): { method: string; info: { method?: string } } {
  const upper = method.toUpperCase();
  return FORBIDDEN.has(upper) ? { method: 'GET', info: { method: upper } } : { method, info: {} };
}
