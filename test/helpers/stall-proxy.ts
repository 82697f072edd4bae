/**
 * A loopback HTTP proxy in front of a real server (s3rver) that can hold chosen requests: a held request is never
 * forwarded and never answered, as a store that has stopped responding, so the client's own timeout and retry run.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which requests to hold: those `match` accepts, after letting the first `skip` of them through, at most `times`. */
export interface HoldRule {
  match: (req: IncomingMessage) => boolean;
  skip?: number;
  times?: number;
}

/** A running proxy: its endpoint, the rule in force and what it saw. */
export interface StallProxy {
  endpoint: string;
  /** The rule in force (null: forward everything). */
  hold: HoldRule | null;
  /** Requests the rule matched, held or not. */
  matched: number;
  /** Requests held. */
  held: number;
  /** Awaited before each request is forwarded (e.g. to change the store between two reads of a command). */
  before: ((req: IncomingMessage) => Promise<void>) | null;
  stop(): Promise<void>;
}

/** Start a proxy on 127.0.0.1 forwarding to `target` (e.g. http://127.0.0.1:41234). */
export async function startStallProxy(target: string): Promise<StallProxy> {
  const upstream = new URL(target);
  const proxy: StallProxy = {
    endpoint: '',
    hold: null,
    matched: 0,
    held: 0,
    before: null,
    stop: async () => undefined,
  };
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server = createServer((req, res) => {
    const rule = proxy.hold;
    if (rule !== null && rule.match(req)) {
      proxy.matched += 1;
      const n = proxy.matched - (rule.skip ?? 0);
      if (n > 0 && n <= (rule.times ?? Infinity)) {
        proxy.held += 1;
        req.resume();
        return;
      }
    }
    if (proxy.before === null) forward(req, res);
    else {
      req.pause();
      proxy.before(req).then(
        () => forward(req, res),
        () => res.destroy(),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

/** True for an S3 DeleteObjects request (POST /<bucket>?delete). */
export const isDeleteObjects = (req: IncomingMessage): boolean =>
  req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url ?? '');
