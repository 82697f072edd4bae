/**
 * Every line the process writes goes through one log-safe writer: caller text that the MCP SDK echoes in its errors
 * (a protocol version with a line break, a forged line, a planted address, a terminal escape and C1 bytes; a 64 KB
 * version string) becomes one capped, clean line, and repeated SDK errors are rate-limited in the log.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logJson, logLine, MAX_LOG_LINE_CHARS, rateLimited, safeLine } from '../shim/edge/log-line.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { FAILURE_LINES_PER_MINUTE, problemOf } from '../shim/http/problem.ts';
import { StoreError } from '../shim/store/types.ts';

const FORGED = '2099-01-01\n[shim] FORGED LINE client=203.0.113.9\u001b[31m\u009b\u0085\r\u2028end';

/** What a line must never hold: a break, C0 or C1 controls or DEL, a line separator, the planted address. */
function expectClean(line: string): void {
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  expect(line).not.toContain('203.0.113.9');
}

describe('safeLine, logLine and logJson', () => {
  it('make caller text one clean line', () => {
    const out: string[] = [];
    logLine(`[shim] mcp: ${FORGED}`, (chunk) => out.push(chunk));
    expect(out).toHaveLength(1);
    const line = out[0] as string;
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expectClean(line.slice(0, -1));
    expect(line).toContain('[address]');
  });

  it('mask every routable address but keep the unspecified and loopback ones an operator message names', () => {
    const line = safeLine('HOST=0.0.0.0 serves http://127.0.0.1:8787; client 203.0.113.9 and 2001:db8::1');
    expect(line).toContain('HOST=0.0.0.0');
    expect(line).toContain('http://127.0.0.1:8787');
    expect(line).not.toContain('203.0.113.9');
    expect(line).not.toContain('2001:db8::1');
  });

  it('let at most FAILURE_LINES_PER_MINUTE store failures a minute into the log, however many requests fail', () => {
    const lines: string[] = [];
    // The process's own stderr is what the log is: captured here, as a host's log agent would read it.
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    try {
      for (let i = 0; i < FAILURE_LINES_PER_MINUTE * 5; i++)
        expect(problemOf(new StoreError(`site store did not return k${i}`, `k${i}`), 'test').problem.status).toBe(503);
    } finally {
      spy.mockRestore();
    }
    const failures = lines.filter((l) => l.includes('store failure on test'));
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThanOrEqual(FAILURE_LINES_PER_MINUTE);
  });

  it('cap a 64 KB text, saying how much was left out', () => {
    const line = safeLine(`version ${'9'.repeat(64 * 1024)}`);
    expect(line.length).toBeLessThan(MAX_LOG_LINE_CHARS + 50);
    expect(line).toMatch(/… \(\d+ more characters\)$/);
  });

  it('keep a JSON line valid JSON, with its strings capped and cleaned', () => {
    const out: string[] = [];
    logJson({ type: 'mcp_error', message: `${FORGED}${'x'.repeat(64 * 1024)}` }, (chunk) => out.push(chunk));
    const line = (out[0] as string).slice(0, -1);
    expectClean(line);
    expect(line.length).toBeLessThan(MAX_LOG_LINE_CHARS);
    expect((JSON.parse(line) as { type: string }).type).toBe('mcp_error');
  });

  it('rateLimited lets a few through a window and then says how many it held back', () => {
    let t = 0;
    const out: string[] = [];
    const log = rateLimited(
      (m: string) => out.push(m),
      (n) => out.push(`${n} held`),
      { perWindow: 3, windowMs: 1000, now: () => t },
    );
    for (let i = 0; i < 10; i++) log(`e${i}`);
    expect(out).toEqual(['e0', 'e1', 'e2']);
    t = 1000;
    log('later');
    expect(out).toEqual(['e0', 'e1', 'e2', '7 held', 'later']);
  });
});

describe('the MCP SDK error line under the real server', () => {
  let server: TestServer;
  let lines: string[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n').slice(0, -1));
      return true;
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await server.close();
  });

  /** A ping whose envelope names `version` while the header names 2026-07-28: the SDK rejects it, echoing the body's. */
  async function ping(version: string): Promise<number> {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': version,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
          },
        },
      }),
    });
    await res.arrayBuffer();
    return res.status;
  }

  it('a forged version and a 62 KB one are one capped, clean line each; repeats are rate-limited', async () => {
    lines = [];
    expect(await ping(FORGED)).toBeLessThan(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[shim\] mcp: /);
    expectClean(lines[0] as string);
    expect(lines.some((line) => line.startsWith('[shim] FORGED'))).toBe(false);

    lines = [];
    // As long as the 64 KiB body limit lets a version string be.
    expect(await ping(`2099-01-01${'\u009b'.repeat(10)}${'9'.repeat(62 * 1024)}`)).toBeLessThan(500);
    expect(lines).toHaveLength(1);
    expect((lines[0] as string).length).toBeLessThan(MAX_LOG_LINE_CHARS + 50);
    expectClean(lines[0] as string);

    // Ten a minute: the 8 written above and below this point are the last let through; the rest are counted.
    lines = [];
    for (let i = 0; i < 20; i++) await ping(`2099-01-0${i % 9}`);
    expect(lines.length).toBe(8);
  });
});
