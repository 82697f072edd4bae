/**
 * A loopback server speaking just enough S3 (path-style GetObject, NoSuchKey) over a site folder to make the faults
 * s3rver cannot: bodies that trickle one byte a second, headers that never come, a connection closed mid-body, and
 * answers that are slow but arrive. The fault is chosen per key when a request arrives; a fault already under way
 * carries on after `fault` changes, as a slow S3 connection does after the service behind it is repaired.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

/** What happens to a GetObject: trickle (1 byte/s), stall (no headers), close (half the body, then the socket closes), or a delay in ms before an intact answer. */
export type Fault = 'trickle' | 'stall' | 'close' | { delayMs: number } | null;

/** A running fake S3. */
export interface FakeS3 {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  /** The fault for a key (relative to the bucket) when its request arrives; null serves it intact. */
  fault: (key: string) => Fault;
  /** Responses held open by a fault right now (trickling, stalled or delayed), whether or not anyone still reads them. */
  held(): number;
  /** GetObject requests received, by key. */
  gets: Map<string, number>;
  stop(): Promise<void>;
}

/** Serve `root` (a site folder) as bucket `bucket` on 127.0.0.1. */
export async function startFakeS3(root: string, bucket = 'site'): Promise<FakeS3> {
  const sockets = new Set<Socket>();
  let held = 0;
  const gets = new Map<string, number>();
  const fake: FakeS3 = {
    endpoint: '',
    fault: () => null,
    held: () => held,
    gets,
    stop: async () => undefined,
  };

  const hold = (res: ServerResponse): (() => void) => {
    held++;
    let released = false;
    const release = (): void => {
      if (!released) held--;
      released = true;
    };
    res.on('close', release);
    // A client that closed its side of the connection is gone (S3 closes too); node's server would keep the half-open
    // socket while an answer is pending, so the fault would look held by a client that let go of it.
    res.req.socket.once('end', () => res.destroy());
    return release;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.split('/').map(decodeURIComponent);
    const key = path.slice(2).join('/');
    if (req.method !== 'GET' || path[1] !== bucket || key === '') {
      res.writeHead(400, { 'content-type': 'application/xml' }).end('<Error><Code>InvalidRequest</Code></Error>');
      return;
    }
    gets.set(key, (gets.get(key) ?? 0) + 1);
    const fault = fake.fault(key);
    let body: Buffer;
    try {
      body = await readFile(join(root, key));
    } catch {
      res
        .writeHead(404, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Key>${key}</Key></Error>`);
      return;
    }
    // A ranged GET, as S3 answers one: 206 with the bytes asked for (a cold search reads a pack's blocks so).
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const status = range === null ? 200 : 206;
    if (range !== null) body = body.subarray(Number(range[1]), Math.min(Number(range[2]) + 1, body.length));
    const headers = { 'content-type': 'application/json', 'content-length': String(body.length), etag: '"x"' };
    if (fault === null) {
      res.writeHead(status, headers).end(body);
    } else if (fault === 'stall') {
      hold(res);
    } else if (fault === 'close') {
      res.writeHead(status, headers);
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    } else if (fault === 'trickle') {
      const release = hold(res);
      res.writeHead(status, headers);
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= body.length) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
          release();
          return;
        }
        res.write(body.subarray(at, at + 1));
        at++;
      }, 1000);
      res.on('close', () => clearInterval(timer));
    } else {
      const release = hold(res);
      const timer = setTimeout(() => {
        release();
        if (!res.destroyed) res.writeHead(status, headers).end(body);
      }, fault.delayMs);
      res.on('close', () => clearTimeout(timer));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fake.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((done) => server.close(() => done()));
  };
  return fake;
}
