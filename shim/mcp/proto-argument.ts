/**
 * A find_injury_attorneys call whose arguments hold an own `__proto__` key (JSON.parse keeps it as an ordinary key) is
 * answered here, before the SDK: the SDK's own parsing of the message would drop the key silently, where REST answers
 * `?__proto__=` with 400 unknown_parameter. The tool error carries the same detail REST gives.
 */
import { parseAttorneysArgs } from '../answer/params.ts';
import type { RawArgs } from '../answer/params.ts';
import { problemOf } from '../http/problem.ts';

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** The tool error for a single tools/call of find_injury_attorneys with an own `__proto__` argument; null for anything else. */
export function protoArgumentAnswer(body: unknown): Response | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const msg = body as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (msg.method !== 'tools/call' || msg.params?.name !== 'find_injury_attorneys') return null;
  const args = msg.params.arguments;
  if (typeof args !== 'object' || args === null || Array.isArray(args) || !Object.hasOwn(args, '__proto__'))
    return null;
  // Every own key, `__proto__` included, on an object with no prototype: what REST's query parser hands the Service.
  const raw = Object.defineProperties(Object.create(null) as RawArgs, Object.getOwnPropertyDescriptors(args));
  try {
    parseAttorneysArgs(raw);
    return null;
  } catch (error) {
    const { problem } = problemOf(error, 'MCP tool call');
    const result = { content: [{ type: 'text', text: problem.detail }], isError: true };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result }), {
      status: 200,
      headers: JSON_HEADERS,
    });
  }
}
