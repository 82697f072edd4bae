/**
 * Caller mistakes in a JSON-RPC message, caught before the SDK reads it: params that are not an object, an
 * `initialize` without its params, `tools/call` arguments that are not an object (answered -32602 with one plain
 * sentence, where the SDK answers -32603 or -32602 with a multi-line schema dump), and tool arguments nested too deep
 * or too large, which are replaced by a marker before any recursive code touches them: the tool answers the marker
 * with an `isError` result carrying `invalid_parameter`, in whichever form the protocol revision takes.
 */
import { ApiError } from '../contract/errors.ts';

/** Deepest nesting of a tool's arguments (the arguments object is level 1; every argument is a flat value). */
export const MAX_ARGUMENT_DEPTH = 8;
/** Most characters a tool's arguments may hold (keys and strings, one per value): every argument is short. */
export const MAX_ARGUMENT_CHARS = 4096;

/** Stands in for refused arguments; its value says why ('depth' or 'size') and which argument. */
export const REFUSED_ARGUMENTS = '\u0000refused_arguments';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? 'a string' : `a ${typeof v}`;
}

/** Why `args` is refused (too deep or too large) and the top-level argument at fault, walked without recursion. */
export function argumentsFault(args: Json): { why: 'depth' | 'size'; name: string } | null {
  const stack: [unknown, number, string][] = Object.keys(args).map((k) => [args[k], 2, k]);
  let chars = 0;
  for (const k of Object.keys(args)) chars += k.length + 1;
  while (stack.length > 0) {
    const [value, depth, name] = stack.pop() as [unknown, number, string];
    if (chars > MAX_ARGUMENT_CHARS) return { why: 'size', name };
    if (typeof value === 'string') chars += value.length;
    else chars += 1;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_ARGUMENT_DEPTH) return { why: 'depth', name };
    for (const [k, v] of Object.entries(value)) {
      chars += k.length;
      stack.push([v, depth + 1, name]);
    }
  }
  return chars > MAX_ARGUMENT_CHARS ? { why: 'size', name: Object.keys(args)[0] ?? 'arguments' } : null;
}

/** The tool error for arguments the guard replaced, or null for ordinary arguments. */
export function refusedArguments(args: Json): ApiError | null {
  const fault = args[REFUSED_ARGUMENTS];
  if (!isObject(fault) || typeof fault.name !== 'string') return null;
  const name = fault.name.slice(0, 40);
  const example = 'Send each argument once as a string or a number, e.g. {"location": "Austin, TX"}.';
  return new ApiError(
    'invalid_parameter',
    fault.why === 'depth'
      ? `Tool arguments are flat values, but ${JSON.stringify(name)} is nested more than ${MAX_ARGUMENT_DEPTH} levels deep. ${example}`
      : `Tool arguments hold at most ${MAX_ARGUMENT_CHARS.toLocaleString('en-US')} characters in all (location at most 200, src at most 100); these hold more. ${example}`,
    { parameter: name },
  );
}

/** A caller's mistake in one message, as a JSON-RPC error (code and one sentence), or null. */
function messageMistake(m: Json): { code: number; message: string } | null {
  const params = m.params;
  if ('params' in m && !isObject(params))
    return { code: -32602, message: `Invalid params: params must be an object; got ${kindOf(params)}.` };
  if (m.method === 'initialize' && 'id' in m) {
    const p = (params ?? {}) as Json;
    if (typeof p.protocolVersion !== 'string' || !isObject(p.capabilities) || !isObject(p.clientInfo))
      return {
        code: -32602,
        message:
          'Invalid params: initialize needs params with protocolVersion (a string), capabilities (an object) and clientInfo (an object with name and version).',
      };
  }
  if (m.method === 'tools/call' && isObject(params) && 'arguments' in params && !isObject(params.arguments))
    return {
      code: -32602,
      message: `Invalid params: arguments must be an object of the tool's arguments, e.g. {"location": "Austin, TX"}; got ${kindOf(params.arguments)}.`,
    };
  return null;
}

/** A message with refused tool arguments replaced by the marker; the message itself when they pass. */
function guarded(m: Json): Json {
  if (m.method !== 'tools/call' || !isObject(m.params) || !isObject(m.params.arguments)) return m;
  const fault = argumentsFault(m.params.arguments);
  if (fault === null) return m;
  return { ...m, params: { ...m.params, arguments: { [REFUSED_ARGUMENTS]: fault } } };
}

/** What the route does with a parsed body: answer a mistake at once, or go on with the (guarded) body. */
export type Guarded = { ok: true; body: unknown } | { ok: false; id: unknown; code: number; message: string };

/** Checks every request of a message or batch; a batch with a mistake in any request is refused whole. */
export function guardMessages(body: unknown): Guarded {
  const batch = Array.isArray(body);
  const messages = batch ? (body as unknown[]) : [body];
  for (const m of messages) {
    if (!isObject(m)) continue;
    const mistake = messageMistake(m);
    if (mistake === null) continue;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
    // The id is echoed as sent only in the answer's id field; the sentence names it at most 40 characters long.
    const named = typeof id === 'string' ? id.slice(0, 40) : id;
    if (!batch) return { ok: false, id, ...mistake };
    return {
      ok: false,
      id: null,
      code: -32600,
      message: `Invalid Request: a request in the batch${named === null ? '' : ` (id ${JSON.stringify(named)})`} has a mistake, so nothing was run: ${mistake.message}`,
    };
  }
  const out = messages.map((m) => (isObject(m) ? guarded(m) : m));
  return { ok: true, body: batch ? out : out[0] };
}
