/**
 * A minimal HTTP/1.1 client over a raw TCP socket, one request per connection: it sends exactly the bytes a case
 * describes (odd methods, control bytes in the target, duplicate or missing headers) that fetch and node:http refuse
 * to produce.
 */
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/** One request as bytes on the wire; `target` and header values are sent as UTF-8, unescaped. */
export interface RawRequest {
  method: string;
  target: string;
  /** Header lines in order; a Host header is not added unless listed. */
  headers: [string, string][];
  body?: Uint8Array;
}

/** One parsed answer. */
export interface RawReply {
  status: number;
  /** Header names lower-cased; repeated headers keep every value. */
  headers: Map<string, string[]>;
  body: Buffer;
  /** First header value, or null. */
  header(name: string): string | null;
}

/** The bytes of `req`, with Content-Length for a body and Connection: close so the server ends the exchange. */
export function encodeRequest(req: RawRequest): Buffer {
  const lines = [`${req.method} ${req.target} HTTP/1.1`];
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  if (req.body !== undefined && !req.headers.some(([n]) => n.toLowerCase() === 'content-length')) {
    lines.push(`content-length: ${req.body.byteLength}`);
  }
  lines.push('connection: close', '', '');
  const head = Buffer.from(lines.join('\r\n'), 'utf8');
  return req.body === undefined ? head : Buffer.concat([head, req.body]);
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parse a complete response as read until the server closed; null when nothing (or no status line) came back. */
export function parseResponse(data: Buffer, method: string): RawReply | null {
  // Interim 1xx answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d/.test(data.subarray(0, 12).toString('latin1'))) {
    const interimEnd = data.indexOf('\r\n\r\n');
    if (interimEnd < 0) return null;
    data = data.subarray(interimEnd + 4);
  }
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (match === null) return null;
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = headers.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    headers.set(name, list);
  }
  let body = data.subarray(end + 4);
  const status = Number(match[1]);
  if (method.toUpperCase() === 'HEAD' || status === 204 || status === 304) body = Buffer.alloc(0);
  else if ((headers.get('transfer-encoding')?.[0] ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
  else {
    const length = Number(headers.get('content-length')?.[0]);
    if (Number.isInteger(length)) body = body.subarray(0, length);
  }
  // The server compresses when the request accepts it; the oracle reads the decoded body.
  const coding = (headers.get('content-encoding')?.[0] ?? '').toLowerCase();
  if (body.length > 0 && coding === 'gzip') body = gunzipSync(body);
  else if (body.length > 0 && coding === 'br') body = brotliDecompressSync(body);
  else if (body.length > 0 && coding === 'deflate') body = inflateSync(body);
  return { status, headers, body, header: (name) => headers.get(name.toLowerCase())?.[0] ?? null };
}

/** Send `req` to 127.0.0.1:`port` and read until the server closes; null when it closed without an answer. */
export function sendRaw(port: number, req: RawRequest, timeoutMs = 20_000): Promise<RawReply | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    // No half-close: node's server aborts a request whose client has ended its side before the answer is written.
    socket.on('connect', () => socket.write(encodeRequest(req)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after a complete answer (the server closing while our FIN is in flight) still counts as that answer.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks), req.method));
    });
  });
}
