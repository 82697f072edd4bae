/**
 * Keep-alive sockets and a client that runs late: a test process (or any client) whose event loop is blocked, or starved
 * of CPU, past the advertised `Keep-Alive: timeout=5` sends its next request on the pooled socket before its own idle
 * timer runs. The server must still answer it, not reset the connection (ECONNRESET).
 */
import { Agent, get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { useS3rver } from './helpers/s3rver.ts';

/** Block this thread without using CPU: no timer, socket or callback of this process runs meanwhile. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Longer than the advertised 5 s plus node's default 1 s grace, the window in which the reset happened. */
const STALL_MS = 6_500;

function agentGet(agent: Agent, url: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

describe('a request on a keep-alive socket after the client stalled past the advertised timeout', () => {
  const s3 = useS3rver();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is answered, by the API server (fetch and http.Agent) and by the loopback S3 of the tests (http.Agent)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const s3Agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const listing = `${s3.endpoint}/site?list-type=2`;
    try {
      const first = await fetch(`${server.url}/v1/coverage`);
      await first.text();
      expect(first.headers.get('keep-alive')).toBe('timeout=5');
      expect((await agentGet(agent, `${server.url}/v1/coverage`)).status).toBe(200);
      expect((await agentGet(s3Agent, listing)).status).toBe(200);
      // One stall for all three pooled sockets (the test takes its length once).
      blockEventLoop(STALL_MS);
      const second = await fetch(`${server.url}/v1/coverage`);
      await second.text();
      expect(second.status).toBe(200);
      expect(await agentGet(agent, `${server.url}/v1/coverage`)).toEqual({ status: 200, reused: true });
      expect(await agentGet(s3Agent, listing)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
      s3Agent.destroy();
    }
  });
});
