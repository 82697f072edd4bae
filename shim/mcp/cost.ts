/**
 * What an MCP POST spends of the answer quota: one answer per tool call that runs (an `isError` result from the tool
 * included), also inside a JSON-RPC batch. Protocol messages (initialize, notifications, tools/list, ping) spend
 * nothing, and neither does a call answered with a JSON-RPC error, a call whose arguments were refused before the tool
 * ran, or a batch refused whole. The body is read and parsed here, once, and handed on to the route.
 */
import type { JsonBody } from '../edge/edge-types.ts';
import type { Charge } from '../http/admission.ts';
import { MAX_BODY_BYTES } from '../edge/limits.ts';

type Id = string | number;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number';
}

/** The distinct ids of the tools/call requests in a message or batch (a call without an id is no request). */
export function toolCallIds(body: unknown): Set<Id> {
  const messages = Array.isArray(body) ? body : [body];
  const ids = new Set<Id>();
  for (const m of messages) if (isObject(m) && m.method === 'tools/call' && isId(m.id)) ids.add(m.id);
  return ids;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A request body's JSON, read once: over MAX_BODY_BYTES, not UTF-8 JSON, or its value; never throws. */
export function readJsonBody(body: Uint8Array | null): JsonBody {
  if (body !== null && body.byteLength > MAX_BODY_BYTES) return { kind: 'too_large' };
  try {
    return { kind: 'json', value: JSON.parse(utf8.decode(body ?? new Uint8Array(0))) as unknown };
  } catch {
    return { kind: 'not_json' };
  }
}

/** The charge of an MCP POST: its tool calls reserved up front, settled by the calls that ran. Never throws. */
export function mcpCharge(requestBody: Uint8Array | null): Charge {
  const body = readJsonBody(requestBody);
  const units = body.kind === 'json' ? toolCallIds(body.value).size : 0;
  return { units, perCall: true, body };
}
