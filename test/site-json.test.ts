/**
 * The one reader of published objects (shim/format/site-json.ts): what the shim, the generator, publish, prune and the
 * audit read is bytes checked against their recorded sha256, UTF-8 JSON and the schema, and every failure is a
 * StoreError naming the key, whoever reads it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StoreError } from '../shim/contract/errors.ts';
import { parseObject, readObject } from '../shim/format/site-json.ts';
import { MemoryStore } from '../shim/store/memory.ts';
import { readStoredVersion } from '../generator/site/bucket-version.ts';
import { openStoredVersion } from '../generator/site/site.ts';

const Doc = z.object({ version: z.string(), n: z.number() });
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

async function failure(p: Promise<unknown> | (() => unknown)): Promise<StoreError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    return err as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('readObject', () => {
  const good = bytes('{"version":"v1","n":3}\n');
  const store = new MemoryStore(
    new Map([
      ['good.json', good],
      ['bad-json.json', bytes('{"version":')],
      ['bad-utf8.json', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])],
      ['bad-schema.json', bytes('{"version":"v1","n":"three"}')],
    ]),
  );

  it('reads an object that matches its schema and its recorded hash; a missing key is null', async () => {
    expect(await readObject(store, 'good.json', Doc)).toEqual({ version: 'v1', n: 3 });
    expect(await readObject(store, 'good.json', Doc, sha(good))).toEqual({ version: 'v1', n: 3 });
    expect(await readObject(store, 'missing.json', Doc)).toBeNull();
  });

  it('refuses invalid JSON, invalid UTF-8, a schema mismatch and a hash mismatch, each a StoreError naming the key', async () => {
    for (const key of ['bad-json.json', 'bad-utf8.json']) {
      const err = await failure(readObject(store, key, Doc));
      expect(err.key).toBe(key);
      expect(err.message).toContain(`${key} is not valid UTF-8 JSON`);
    }
    const schema = await failure(readObject(store, 'bad-schema.json', Doc));
    expect(schema.key).toBe('bad-schema.json');
    expect(schema.message).toMatch(/^bad-schema\.json does not match its schema at n:/);
    const hash = await failure(readObject(store, 'good.json', Doc, '0'.repeat(64)));
    expect(hash.message).toContain('good.json does not match the sha256 recorded for it');
    expect(() => parseObject(bytes('[]'), 'k.json', Doc)).toThrow(StoreError);
  });
});

describe('the generator reads a site the same way', () => {
  it('a site without its pointer, or a stored version whose manifest is not JSON, is a StoreError naming the key', async () => {
    const err = await failure(openStoredVersion({ kind: 'folder', dir: '/nonexistent-site-json-test' }));
    expect(err.message).toContain('has no current.json');
    const meta = await failure(
      readStoredVersion(
        new MemoryStore(
          new Map([
            ['v/v1/meta.json', bytes('{"layers":{}}')],
            ['v/v1/manifest.json', bytes('not json')],
          ]),
        ),
        'v1',
      ),
    );
    expect(meta.key).toBe('v/v1/manifest.json');
    expect(meta.message).toContain('v/v1/manifest.json is not JSON');
  });
});
