/**
 * Caller-sent text reaches the request log without characters that break lines or reorder what a reader sees:
 * U+2028, U+2029, U+202E and the other controls are replaced by U+FFFD in the location, src and user agent fields.
 */
import { connect } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logSafe } from '../shim/lib/log-text.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Every logged line, as text. */
function logText(): string {
  return readdirSync(server.logDir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => readFileSync(join(server.logDir, f), 'utf8'))
    .join('');
}

/** Send raw bytes (a UTF-8 user agent, which fetch refuses) and read the answer to the end. */
function raw(bytes: Buffer): Promise<string> {
  const url = new URL(server.url);
  return new Promise((done, fail) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let out = '';
    socket.on('data', (b: Buffer) => (out += b.toString('latin1')));
    socket.on('end', () => done(out));
    socket.on('error', fail);
  });
}

const UNSAFE = ['\u2028', '\u2029', '\u202e', '\u2066', '\u200f', '\u0080', '\u0085', '\u009b', '\ufeff'];

describe('the request log', () => {
  it('replaces line separators, bidi controls and other controls in what the caller sent', async () => {
    // A valid search whose src carries line separators (src is logged as sent), and a user agent sent as raw UTF-8 bytes (which
    // node reads as Latin-1, so U+202E arrives as "\u00e2\u0080\u00ae": a C1 control), which fetch refuses to send.
    // (A query string with C0 controls is refused with 400 before anything is logged, and src refuses Unicode's
    // controls and format characters; U+2028 and U+2029 are neither.)
    const src = `tool\u2028x\u2029y`;
    const res = await fetch(`${server.url}/v1/attorneys?zip=60601&src=${encodeURIComponent(src)}`, {
      headers: { 'user-agent': 'agent/1.0' },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const reply = await raw(
      Buffer.concat([
        Buffer.from('GET /v1/attorneys?zip=60601 HTTP/1.1\r\nHost: localhost\r\nUser-Agent: '),
        Buffer.from('bot\u202e\u2028/1', 'utf8'),
        Buffer.from('\r\nConnection: close\r\n\r\n'),
      ]),
    );
    expect(reply.slice(0, reply.indexOf('\r\n'))).toBe('HTTP/1.1 200 OK');
    await server.flushLog();
    const text = logText();
    for (const c of UNSAFE)
      expect(text.includes(c), `U+${c.codePointAt(0)?.toString(16).padStart(4, '0')} in the log`).toBe(false);
    const entries = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { src: string | null; user_agent: string | null });
    expect(entries.map((e) => e.src)).toContain('tool\ufffdx\ufffdy');
    expect(entries.map((e) => e.user_agent)).toContain('bot\u00e2\ufffd\u00ae\u00e2\ufffd\u00a8/1');
  });

  it('keeps ordinary text, accents and characters outside the BMP as sent', () => {
    expect(logSafe('Coeur d’Alène, ID 😀 東京')).toBe('Coeur d’Alène, ID 😀 東京');
    expect(logSafe('a\ud800b')).toBe('a\ufffdb');
  });
});
