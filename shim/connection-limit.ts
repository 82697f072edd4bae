/**
 * A cap on the open connections of the local server, per network address and in all. A connection over either cap is
 * refused at once with a 503 problem (Retry-After, Connection: close) written before any request is read, and closed;
 * nothing of it reaches the app. Behind a trusted proxy every connection comes from the proxy, so only the total holds.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './contract/errors.ts';
import { normaliseAddress } from './http/client-address.ts';
import { renderProblem } from './http/problem.ts';

/** Open connections one network address may hold (a browser opens six; a load test on loopback 50). */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;
/** Open connections the server holds in all. */
export const MAX_CONNECTIONS = 1024;

/** The caps; perAddress null: not counted per address (behind a trusted proxy). */
export interface ConnectionCaps {
  perAddress: number | null;
  total: number;
}

/** The raw HTTP/1.1 bytes of the refusal. */
function refusal(reason: string, publicBaseUrl?: string): string {
  const error = new ApiError('service_unavailable', reason, { retryAfterSeconds: 1 });
  const { status, headers, body } = renderProblem(error, 'connection', publicBaseUrl);
  const lines = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines}\r\n\r\n${body}`;
}

/** Enforce `caps` on `server`'s connections; returns the count of open connections (for tests). */
export function limitConnections(server: Server, caps: ConnectionCaps, publicBaseUrl?: string): () => number {
  const byAddress = new Map<string, number>();
  let open = 0;
  // Before node's own listener, so a refused socket is ended before its parser answers anything.
  server.prependListener('connection', (socket: Socket) => {
    const address = normaliseAddress(socket.remoteAddress ?? 'unknown');
    const mine = byAddress.get(address) ?? 0;
    const overAddress = caps.perAddress !== null && mine >= caps.perAddress;
    if (open >= caps.total || overAddress) {
      const reason = overAddress
        ? `This network address already holds ${caps.perAddress} open connections; reuse them or close some, then retry.`
        : 'The server holds as many connections as it takes; retry in a second.';
      // The request is never read: the refusal goes out, then the socket is closed whatever the client sends.
      socket.end(refusal(reason, publicBaseUrl));
      socket.setTimeout(1000, () => socket.destroy());
      return;
    }
    open++;
    byAddress.set(address, mine + 1);
    socket.once('close', () => {
      open--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left <= 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
  return () => open;
}
