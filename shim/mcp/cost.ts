/**
 * What an MCP POST spends of the answer quota: one answer per tool call that runs (an `isError` result from the tool
 * included), also inside a JSON-RPC batch. Protocol messages (initialize, notifications, tools/list, ping) spend
 * nothing, and neither does a call answered with a JSON-RPC error, a call whose arguments were refused before the tool
 * ran, or a batch refused whole. The body is read and parsed here, once, and handed on to the route.
 */
import { readRequestBody } from '@modelcontextprotocol/server';
import type { JsonBody } from '../edge-types.ts';
import type { Charge } from '../http/limits.ts';
import { MAX_BODY_BYTES } from '../limits.ts';

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

/** The request's JSON body, read up to MAX_BODY_BYTES and parsed; never throws. */
export async function readJsonBody(request: Request): Promise<JsonBody> {
  try {
    const read = await readRequestBody(request, MAX_BODY_BYTES);
    if (read.tooLarge) return { kind: 'too_large' };
    return { kind: 'json', value: JSON.parse(read.text) as unknown };
  } catch {
    return { kind: 'not_json' };
  }
}

/** The charge of an MCP POST: its tool calls reserved up front, settled by the calls that ran. Never throws. */
export async function mcpCharge(request: Request): Promise<Charge> {
  const body = await readJsonBody(request);
  const units = body.kind === 'json' ? toolCallIds(body.value).size : 0;
  return { units, perCall: true, body };
}
