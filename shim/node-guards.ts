/**
 * The Node adapter's own rules, answered before the app sees a request: a missing Host (HTTP/1.1), a body over the
 * limit (413, before `100 Continue` when the client waits for it), an Expect other than 100-continue (417), CONNECT
 * (405: this is not a proxy) and whatever node's HTTP parser refused (400, 408, 431). Each answer is a problem+json
 * from the one renderer with the CORS and RateLimit headers every answer carries.
 */
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from './contract/errors.ts';
import { normaliseAddress } from './http/client-address.ts';
import { renderProblem } from './http/problem.ts';
import { HEADERS_TIMEOUT_MS, MAX_BODY_BYTES, REQUEST_TIMEOUT_MS } from './edge/limits.ts';

/** Headers every answer carries beyond its own (CORS, RateLimit), for the caller at `address`; counts nothing. */
export type EdgeHeaders = (address: string) => Record<string, string>;

/** What the guards' answers are made with. */
export interface GuardOptions {
  /** CORS and RateLimit headers for the guards' answers; none by default. */
  edgeHeaders?: EdgeHeaders;
  /** Base of the problem `type` pages (default: the placeholder base). */
  publicBaseUrl?: string;
  /** Request body limit in bytes (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

/** The HTTP/1.1 bytes of a problem answer, for a socket the HTTP server no longer writes to (client errors, CONNECT). */
function problemBytes(error: ApiError, extra: Record<string, string>, publicBaseUrl?: string): string {
  const { status, headers, body } = renderProblem(error, 'client error', publicBaseUrl, extra);
  const lines = Object.entries({
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  }).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Write a problem answer (renderProblem) on a node:http response; `close` ends the connection after it. */
export function sendProblem(
  res: ServerResponse,
  error: ApiError,
  extra: Record<string, string>,
  close = false,
  publicBaseUrl?: string,
): void {
  const { status, headers, body } = renderProblem(error, 'server', publicBaseUrl, extra);
  res.writeHead(status, {
    ...headers,
    'content-length': String(Buffer.byteLength(body)),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
}

/** What the HTTP parser refused, as the problem the caller gets. */
function clientErrorProblem(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'header_fields_too_large',
        `The request headers are larger than ${maxHeaderSize} bytes; send fewer or shorter headers.`,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // node reports both limits with this one code.
      return new ApiError(
        'request_timeout',
        `The request was not received in time: the headers must arrive within ${HEADERS_TIMEOUT_MS / 1000} seconds and the whole request within ${REQUEST_TIMEOUT_MS / 1000} seconds.`,
      );
    case 'HPE_INVALID_METHOD':
      // The parser refused the request line itself (a lower-case or unknown method): a malformed request, the
      // caller's to fix, so 400 rather than 501 (a 5xx would blame the service) or 405 (which needs the path's Allow).
      return new ApiError(
        'bad_request',
        'The request method is not one this service knows; methods are upper case: GET, HEAD or OPTIONS (POST for /mcp).',
      );
    default:
      return new ApiError(
        'bad_request',
        'The request is not valid HTTP/1.1 (request line, Host or headers); nothing was processed.',
      );
  }
}

/**
 * Answer what node's HTTP parser refused (oversized headers, bad request line, unknown method) with a problem+json
 * carrying the edge headers, where the socket still takes an answer.
 */
export function answerClientError(
  edgeHeaders: EdgeHeaders,
  publicBaseUrl?: string,
): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const address = normaliseAddress((socket as Partial<Socket>).remoteAddress ?? 'unknown');
    socket.end(problemBytes(clientErrorProblem(err.code), edgeHeaders(address), publicBaseUrl));
  };
}

/** The 413 problem of a body over `limit` bytes. */
function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `The request body is larger than ${limit} bytes.`);
}

class BodyTooLarge extends Error {}

/** The body of `req` up to `limit` bytes; rejects BodyTooLarge past it (or when Content-Length already says so). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.byteLength;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * The request's own guards, in the listener: null when it may go on to the app (with its body read within the limit),
 * else having answered it (400 without Host, 413 over the limit) or dropped a connection that failed mid-body.
 */
export async function admitRequest(
  req: IncomingMessage,
  res: ServerResponse,
  address: string,
  opts: GuardOptions,
): Promise<{ body: Uint8Array | null } | null> {
  const extra = (): Record<string, string> => opts.edgeHeaders?.(address) ?? {};
  if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
    sendProblem(
      res,
      new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.'),
      extra(),
      true,
      opts.publicBaseUrl,
    );
    return null;
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    req.resume();
    return { body: null };
  }
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  try {
    return { body: await readBody(req, limit) };
  } catch (err) {
    if (err instanceof BodyTooLarge) sendProblem(res, tooLarge(limit), extra(), true, opts.publicBaseUrl);
    else res.destroy();
    return null;
  }
}

/**
 * The server's guards that node raises as events rather than requests: the parser's refusals, an Expect other than
 * 100-continue, a body over the limit announced with `Expect: 100-continue` (refused before 100 Continue, so the
 * client never sends it), and CONNECT (which node hands to no request listener).
 */
export function installGuards(server: Server, opts: GuardOptions): void {
  const edgeHeaders = opts.edgeHeaders ?? (() => ({}));
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const base = opts.publicBaseUrl;
  const socketAddress = (req: IncomingMessage): string => normaliseAddress(req.socket.remoteAddress ?? 'unknown');
  server.on('clientError', answerClientError(edgeHeaders, base));
  // Without these listeners node answers an unknown Expect with a bare 417, and `100-continue` with 100 Continue before
  // the listener can see that the declared body is over the limit.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const error = new ApiError(
      'expectation_failed',
      `The Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met; only 100-continue is supported.`,
    );
    sendProblem(res, error, edgeHeaders(socketAddress(req)), true, base);
  });
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      sendProblem(res, tooLarge(limit), edgeHeaders(socketAddress(req)), true, base);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    const error = new ApiError(
      'method_not_allowed',
      'CONNECT is not supported: this is not a proxy. Use GET, HEAD or OPTIONS (POST for /mcp).',
    );
    socket.end(problemBytes(error, { ...edgeHeaders(socketAddress(req)), allow: 'GET, HEAD, OPTIONS' }, base));
  });
}
