/**
 * What node's HTTP server refuses before the app sees a request, on raw sockets against the real server: an Expect it
 * cannot meet (417), a body over the limit announced with `Expect: 100-continue` (413 before any 100 Continue), and
 * headers or a request that never finish (408 when the limit is reached, not up to 30 s later), each as problem+json.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../shim/server.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

/** What came back on one socket: every byte, when the first arrived and when it closed (ms after connecting). */
interface Exchange {
  text: string;
  firstByteMs: number | null;
  closedMs: number;
}

/**
 * Open a socket, write `head`, then each of `later` when the reply so far matches its `after` pattern; collect the
 * reply until the server closes (or `giveUpMs`).
 */
function exchange(
  to: number,
  head: string,
  opts: { later?: { after: RegExp; send: string | Buffer }[]; giveUpMs?: number } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(to, '127.0.0.1');
    const later = [...(opts.later ?? [])];
    let text = '';
    let firstByteMs: number | null = null;
    const timer = setTimeout(() => socket.destroy(), opts.giveUpMs ?? 10_000);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ??= Date.now() - started;
      text += chunk.toString('latin1');
      while (later[0] !== undefined && later[0].after.test(text))
        socket.write((later.shift() as { send: string | Buffer }).send);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, firstByteMs, closedMs: Date.now() - started });
    });
  });
}

/** The status line, headers (lower-cased names) and body of the last response in `text`. */
function lastResponse(text: string): { status: number; headers: Map<string, string>; body: string } {
  const at = text.lastIndexOf('HTTP/1.1 ');
  const [head = '', body = ''] = text.slice(at).split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function expectProblem(text: string, status: number, code: string): void {
  const reply = lastResponse(text);
  expect(reply.status, text.slice(0, 300)).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const body = JSON.parse(reply.body) as { status: number; code: string; detail: string };
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(reply.headers.get('access-control-allow-origin')).toBe('*');
}

describe('Expect', () => {
  it('an Expect other than 100-continue gets 417 problem+json, not a bare 417', async () => {
    const reply = await exchange(port, 'GET /v1/coverage HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\n\r\n');
    expectProblem(reply.text, 417, 'expectation_failed');
    expect(JSON.parse(lastResponse(reply.text).body).detail).toContain('100-continue');
  });

  it('a body over the limit announced with 100-continue gets 413 before any 100 Continue, and the body is never asked for', async () => {
    const size = 8 * 1024 * 1024;
    const reply = await exchange(
      port,
      `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nExpect: 100-continue\r\n\r\n`,
      {
        later: [{ after: /^HTTP\/1\.1 100 /, send: Buffer.alloc(size, 0x20) }],
      },
    );
    expect(reply.text.startsWith('HTTP/1.1 413 '), reply.text.slice(0, 200)).toBe(true);
    expect(reply.text).not.toContain('100 Continue');
    expectProblem(reply.text, 413, 'payload_too_large');
  });

  it('a small body announced with 100-continue gets 100 Continue, then its answer', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const reply = await exchange(
      port,
      `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      { later: [{ after: /^HTTP\/1\.1 100 Continue\r\n\r\n/, send: body }] },
    );
    expect(reply.text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expect(lastResponse(reply.text).status).toBe(200);
    expect(lastResponse(reply.text).body).toContain('find_injury_attorneys');
  });
});

describe('timeouts', () => {
  it('are the documented 10 s for the headers and 30 s for the whole request', () => {
    expect([HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS]).toEqual([10_000, 30_000]);
  });

  it.concurrent(
    `headers that never finish get 408 problem+json at ${HEADERS_TIMEOUT_MS / 1000} s, not later`,
    async () => {
      const reply = await exchange(port, 'GET /v1/coverage HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', {
        giveUpMs: 20_000,
      });
      expectProblem(reply.text, 408, 'request_timeout');
      expect(reply.firstByteMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(reply.firstByteMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1_500);
    },
    25_000,
  );

  // The whole-request limit is checked by the same timer; a server with both limits shortened shows it is kept to
  // the second without waiting 30 s (before, node checked every 30 s, so a stalled socket lived up to a minute).
  it.concurrent(
    'a body that never finishes gets 408 problem+json at the request limit, not later',
    async () => {
      const short = await startTestServer({}, { timeouts: { headersMs: 1_000, requestMs: 3_000 } });
      try {
        const shortPort = Number(new URL(short.url).port);
        const head = await exchange(shortPort, 'GET /v1/coverage HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', {
          giveUpMs: 10_000,
        });
        expectProblem(head.text, 408, 'request_timeout');
        expect(head.firstByteMs).toBeGreaterThanOrEqual(900);
        expect(head.firstByteMs).toBeLessThan(2_500);
        const body = await exchange(
          shortPort,
          'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
          { giveUpMs: 10_000 },
        );
        expectProblem(body.text, 408, 'request_timeout');
        expect(body.firstByteMs).toBeGreaterThanOrEqual(2_900);
        expect(body.firstByteMs).toBeLessThan(4_500);
      } finally {
        await short.close();
      }
    },
    25_000,
  );
});
