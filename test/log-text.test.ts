/**
 * Caller-sent text reaches the request log without characters that break lines or reorder what a reader sees:
 * U+2028, U+2029, U+202E and the other controls are replaced by U+FFFD in the location, src and user agent fields.
 */
import { connect } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logSafe } from '../shim/http/log-text.ts';
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
    const socket = connect(Number(url.port), url.hostname, () => socket.end(bytes));
    let out = '';
    socket.on('data', (b: Buffer) => (out += b.toString('latin1')));
    socket.on('end', () => done(out));
    socket.on('error', fail);
  });
}

const UNSAFE = ['\u2028', '\u2029', '\u202e', '\u202d', '\u2066', '\u200f', '\u0085', '\u009b', '\u001b', '\u0000', '\u007f', '\ufeff'];

describe('the request log', () => {
  it('replaces line separators, bidi controls and other controls in what the caller sent', async () => {
    const location = `Chicago\u2028, IL\u2029\u202eevil\u2066`;
    const src = `tool\u202e\u001b[31m\u0085`;
    const res = await fetch(`${server.url}/v1/attorneys?location=${encodeURIComponent(location)}&src=${encodeURIComponent(src)}`, { headers: { 'user-agent': 'agent/1.0' } });
    await res.arrayBuffer();
    const target = `/v1/attorneys?zip=60601&src=${encodeURIComponent('ua\u2029')}`;
    const reply = await raw(Buffer.concat([Buffer.from(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: `), Buffer.from('bot\u202e\u2028/1', 'utf8'), Buffer.from('\r\nConnection: close\r\n\r\n')]));
    expect(reply.startsWith('HTTP/1.1 200')).toBe(true);
    await server.flushLog();
    const text = logText();
    for (const c of UNSAFE) expect(text.includes(c), `U+${c.codePointAt(0)?.toString(16).padStart(4, '0')} in the log`).toBe(false);
    const lines = text.split('\n').filter((l) => l !== '');
    const entries = lines.map((l) => JSON.parse(l) as { location: string | null; src: string | null; user_agent: string | null });
    expect(entries.map((e) => e.location)).toContain('Chicago\ufffd, IL\ufffd\ufffdevil\ufffd');
    expect(entries.map((e) => e.src)).toContain('tool\ufffd\ufffd[31m\ufffd');
    expect(entries.some((e) => e.user_agent?.startsWith('bot') === true && e.user_agent.includes('\ufffd'))).toBe(true);
  });

  it('keeps ordinary text, accents and characters outside the BMP as sent', () => {
    expect(logSafe('Coeur d’Alène, ID 😀 東京')).toBe('Coeur d’Alène, ID 😀 東京');
    expect(logSafe('a\ud800b')).toBe('a\ufffdb');
  });
});
