/**
 * What an MCP POST spends of the answer quota: one answer per tool call that gets a result (an `isError` result
 * included), also inside a JSON-RPC batch. Protocol messages (initialize, notifications, tools/list, ping) spend
 * nothing, and neither does a call answered with a JSON-RPC error or a batch refused whole.
 */
import type { Charge } from '../http/admission.ts';

/** Largest body inspected; the route itself refuses larger ones. */
const MAX_INSPECTED_BYTES = 64 * 1024;

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

/** The JSON-RPC messages of an answer: a JSON body (one message or a batch) or the `data:` lines of an event stream. */
function answerMessages(contentType: string, text: string): unknown[] {
  const bodies = contentType.includes('text/event-stream')
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
    : [text];
  const out: unknown[] = [];
  for (const body of bodies) {
    try {
      const parsed: unknown = JSON.parse(body);
      out.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    } catch {
      // Not JSON-RPC: nothing in it answers a call.
    }
  }
  return out;
}

/** How many of `ids` the answer gave a `result`. */
export async function answeredCalls(ids: ReadonlySet<Id>, response: Response): Promise<number> {
  if (ids.size === 0 || response.body === null) return 0;
  const text = await response.clone().text();
  const answered = new Set<Id>();
  for (const m of answerMessages(response.headers.get('content-type') ?? '', text)) {
    if (isObject(m) && 'result' in m && isId(m.id) && ids.has(m.id)) answered.add(m.id);
  }
  return answered.size;
}

/** The charge of an MCP POST: its tool calls reserved up front, settled by the answer. Never throws. */
export async function mcpCharge(request: Request): Promise<Charge> {
  let body: unknown;
  try {
    const text = await request.clone().text();
    if (text.length > MAX_INSPECTED_BYTES) return { units: 0 };
    body = JSON.parse(text);
  } catch {
    return { units: 0 };
  }
  const ids = toolCallIds(body);
  return { units: ids.size, spent: (response) => answeredCalls(ids, response) };
}
