/**
 * Runs a CloudFront Function's source under node:vm with only what the cloudfront-js-2.0 runtime offers: the language
 * built-ins, console.log, Buffer, require('crypto') (createHash, createHmac) and the `cloudfront` module's kvs() over
 * an in-memory store. No timers, no fetch, no process, no other module: code that reaches for them fails here too.
 */
import { createHash, createHmac } from 'node:crypto';
import { createContext, Script } from 'node:vm';

/** A CloudFront Functions value: `{ value }`, with `multiValue` when the name was repeated. */
export interface CfValue {
  value: string;
  multiValue?: Array<{ value: string }>;
}

/** The viewer-request event, as far as the function reads it. */
export interface CfEvent {
  version: '1.0';
  context: { eventType: 'viewer-request'; distributionId: string; requestId: string };
  viewer: { ip: string };
  request: {
    method: string;
    uri: string;
    querystring: Record<string, CfValue> | string;
    headers: Record<string, CfValue>;
    cookies: Record<string, CfValue>;
  };
}

/** A loaded function: its handler and every line it logged. */
export interface LoadedFunction {
  handler(event: CfEvent): Promise<CfEvent['request']>;
  logs: string[];
}

const IMPORT_RE = /^import\s+cf\s+from\s+'cloudfront';$/m;

/** Load `source` with `kvs` as the contents of the store with id `kvsId`. */
export function loadCloudFrontFunction(source: string, kvsId: string, kvs: Map<string, string>): LoadedFunction {
  const imports = source.match(/^\s*import\s.*$/gm) ?? [];
  if (imports.length !== 1 || !IMPORT_RE.test(source))
    throw new Error(`only "import cf from 'cloudfront'" is available; found ${JSON.stringify(imports)}`);
  for (const [, name] of source.matchAll(/require\(\s*'([^']*)'\s*\)/g))
    if (name !== 'crypto') throw new Error(`module ${name} is not available`);
  const logs: string[] = [];
  const cloudfront = {
    kvs(id: string) {
      if (id !== kvsId) throw new Error(`no key-value store ${id} is associated with this function`);
      return {
        async get(key: string): Promise<string> {
          const value = kvs.get(key);
          if (value === undefined) throw new Error(`key not found: ${key}`);
          return value;
        },
      };
    },
  };
  const context = createContext({
    console: { log: (...args: unknown[]) => logs.push(args.map(String).join(' ')) },
    Buffer,
    require(name: string) {
      if (name === 'crypto') return { createHash, createHmac };
      throw new Error(`module ${name} is not available`);
    },
    __cloudfront__: cloudfront,
  });
  new Script(source.replace(IMPORT_RE, 'var cf = __cloudfront__;'), { filename: 'viewer-request.js' }).runInContext(
    context,
  );
  const handler = (context as { handler?: LoadedFunction['handler'] }).handler;
  if (typeof handler !== 'function') throw new Error('the source defines no handler function');
  return { handler, logs };
}

/** The event CloudFront would pass for GET `path` with raw query `query` (values as sent, %-escapes kept). */
export function viewerRequest(
  path: string,
  query: string,
  viewer: { ip?: string; userAgent?: string; host?: string } = {},
): CfEvent {
  const querystring: Record<string, CfValue> = {};
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const value = eq < 0 ? '' : piece.slice(eq + 1);
    const prev = querystring[name];
    if (prev === undefined) querystring[name] = { value };
    else prev.multiValue = [...(prev.multiValue ?? [{ value: prev.value }]), { value }];
  }
  const headers: Record<string, CfValue> = { host: { value: viewer.host ?? 'directory.example.org' } };
  if (viewer.userAgent !== undefined) headers['user-agent'] = { value: viewer.userAgent };
  return {
    version: '1.0',
    context: { eventType: 'viewer-request', distributionId: 'EDFDVBD6EXAMPLE', requestId: 'req' },
    viewer: { ip: viewer.ip ?? '203.0.113.7' },
    request: { method: 'GET', uri: path, querystring, headers, cookies: {} },
  };
}

/** The query string the origin receives for a request the function returned. */
export function forwardedQuery(request: CfEvent['request']): string {
  if (typeof request.querystring === 'string') return request.querystring;
  const parts: string[] = [];
  for (const [name, entry] of Object.entries(request.querystring)) {
    for (const v of entry.multiValue ?? [entry]) parts.push(v.value === '' ? name : `${name}=${v.value}`);
  }
  return parts.join('&');
}
