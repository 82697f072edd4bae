/**
 * KvsSaltKeyStore through the real AWS SDK client (SigV4A-signed, as the KeyValueStore API requires) against a
 * loopback stand-in for the KeyValueStore data-plane API (the service cannot run here): every write names the store's
 * current ETag, listing follows NextToken pages, and a rotation leaves exactly today's and tomorrow's salt. The
 * rotator's bundle also loads in a fresh Node process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSaltRotator } from '../infra/rotator-bundle.ts';
import { rotateEdgeSalt } from '../shim/aws/edge-salt.ts';
import { KvsSaltKeyStore } from '../shim/aws/kvs-store.ts';
import type { SaltProvider } from '../shim/edge/edge-types.ts';

const ARN = 'arn:aws:cloudfront::111122223333:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

/** The stand-in's state, and what it saw. */
const store = {
  data: new Map<string, string>(),
  etag: 1,
  authorizations: [] as string[],
  ifMatch: [] as string[],
  pages: 0,
};
let server: Server;
let endpoint: string;

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      store.authorizations.push(String(req.headers.authorization ?? ''));
      const url = new URL(req.url ?? '/', 'http://x');
      const prefix = `/key-value-stores/${encodeURIComponent(ARN)}`;
      const path = url.pathname.replace(/%3A/gi, ':').replace(/%2F/gi, '/');
      const send = (status: number, json: unknown, etag = true): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...(etag ? { etag: `E${store.etag}` } : {}) });
        res.end(JSON.stringify(json));
      };
      const rel = path.slice(decodeURIComponent(prefix).length);
      if (!path.startsWith(decodeURIComponent(prefix))) return send(404, { message: 'no such store' }, false);
      if (req.method === 'GET' && rel === '')
        return send(200, { ItemCount: store.data.size, TotalSizeInBytes: 0, KvsARN: ARN, Created: 1_700_000_000 });
      if (req.method === 'GET' && rel === '/keys') {
        // One key per page, so paging is exercised.
        store.pages++;
        const keys = [...store.data.keys()].sort();
        const from = Number(url.searchParams.get('NextToken') ?? '0');
        const item = keys[from];
        return send(
          200,
          {
            Items: item === undefined ? [] : [{ Key: item, Value: store.data.get(item) }],
            ...(from + 1 < keys.length ? { NextToken: String(from + 1) } : {}),
          },
          false,
        );
      }
      const key = decodeURIComponent(rel.replace(/^\/keys\//, ''));
      const ifMatch = String(req.headers['if-match'] ?? '');
      store.ifMatch.push(ifMatch);
      if (ifMatch !== `E${store.etag}`) return send(409, { message: 'ETag mismatch' }, false);
      if (req.method === 'PUT') store.data.set(key, (JSON.parse(await body(req)) as { Value: string }).Value);
      else if (req.method === 'DELETE') store.data.delete(key);
      else return send(405, { message: 'method' }, false);
      store.etag++;
      return send(200, { ItemCount: store.data.size, TotalSizeInBytes: 0 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The client prefixes the endpoint's host with the ARN's account id (<account>.<host>): a name that the agent below
  // resolves to the loopback stand-in.
  endpoint = `http://kvs.invalid:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const loopback = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}) as unknown as LookupFunction;
const client = (): CloudFrontKeyValueStoreClient =>
  new CloudFrontKeyValueStoreClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new Agent({ lookup: loopback } as ConstructorParameters<typeof Agent>[0]),
    }),
  });
const fixed: SaltProvider = { saltFor: async (day) => new Uint8Array(32).fill(day.endsWith('22') ? 1 : 2) };

describe('KvsSaltKeyStore', () => {
  it('rotates through the real client: SigV4A-signed, each write on the current ETag, every page listed', async () => {
    store.data.set('salt-2026-11-20', 'ff'.repeat(32));
    store.data.set('other', 'kept');
    const report = await rotateEdgeSalt(new KvsSaltKeyStore(ARN, client()), fixed, new Date('2026-11-22T12:00:00Z'));
    expect(report).toEqual({
      days: ['2026-11-22', '2026-11-23'],
      put: ['salt-2026-11-22', 'salt-2026-11-23'],
      deleted: ['salt-2026-11-20'],
    });
    expect([...store.data.entries()].sort()).toEqual([
      ['other', 'kept'],
      ['salt-2026-11-22', '01'.repeat(32)],
      ['salt-2026-11-23', '02'.repeat(32)],
    ]);
    expect(store.ifMatch).toEqual(['E1', 'E2', 'E3']);
    expect(store.pages).toBe(2);
    expect(store.authorizations.every((a) => a.startsWith('AWS4-ECDSA-P256-SHA256 '))).toBe(true);
  });

  it('a write that lost a race (ETag changed under it) fails, for the next hourly run to repeat', async () => {
    const kvs = new KvsSaltKeyStore(ARN, client());
    await kvs.put('salt-2026-11-24', '03'.repeat(32));
    store.etag += 5; // another writer
    await expect(kvs.put('salt-2026-11-25', '04'.repeat(32))).rejects.toThrow();
  });
});

describe('the rotator bundle', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'iad-rotator-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds and loads in a fresh Node process, exporting the handler', async () => {
    const { dir: out } = await bundleSaltRotator(join(dir, 'bundle'));
    const printed = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(out, 'index.mjs'))}); console.log(typeof m.handler);`,
      ],
      { encoding: 'utf8' },
    );
    expect(printed.trim()).toBe('function');
  });
});
