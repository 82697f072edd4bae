/** The staging writer: every way of putting an object leaves the same bytes on disk, and `entries` holds their real sha256 and size. */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StagingWriter } from '../generator/write.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function writer(): Promise<StagingWriter> {
  const dir = await mkdtemp(join(tmpdir(), 'staging-writer-'));
  dirs.push(dir);
  return new StagingWriter(dir);
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('StagingWriter', () => {
  it('writes put, putJson, putPieces and putOwned objects as given, across many batches, and records their sha256 and size', async () => {
    const w = await writer();
    const expected = new Map<string, Buffer>();
    try {
      for (let i = 0; i < 6000; i++) {
        const value = { i, name: `office ${i} Ñandú 🚗`, pad: 'x'.repeat(i % 700) };
        const rel = `firms/l_${String(i).padStart(5, '0')}.json`;
        if (i % 3 === 0) await w.put(rel, value);
        else if (i % 3 === 1) await w.putJson(rel, JSON.stringify(value));
        else {
          const text = JSON.stringify(value);
          const cut = text.indexOf('"pad"');
          await w.putPieces(rel, [text.slice(0, cut), '', text.slice(cut)], Buffer.byteLength(text));
        }
        expected.set(rel, Buffer.from(`${JSON.stringify(value)}\n`));
      }
      const big = Buffer.alloc(6 << 20, 'abc');
      await w.put('big-copied.bin', big);
      expected.set('big-copied.bin', Buffer.from(big));
      const owned = Buffer.allocUnsafeSlow(5 << 20).fill('manifest');
      const ownedCopy = Buffer.from(owned);
      await w.putOwned('manifest.json', owned);
      expected.set('manifest.json', ownedCopy);
      const shared = Buffer.from('a pooled buffer, not its own memory\n');
      await w.putOwned('small-owned.txt', shared);
      expected.set('small-owned.txt', Buffer.from(shared));
      await w.flush();

      expect([...w.entries.keys()]).toEqual([...expected.keys()]);
      expect(w.entries.size).toBe(expected.size);
      for (const [rel, bytes] of expected) {
        const onDisk = await readFile(join(w.root, rel));
        expect(onDisk.equals(bytes), rel).toBe(true);
        expect(w.entries.get(rel)).toEqual({ sha256: sha(bytes), bytes: bytes.length });
      }
      expect(new Map(w.entries)).toEqual(new Map([...expected].map(([rel, b]) => [rel, { sha256: sha(b), bytes: b.length }])));
      expect(w.entries.get('absent.json')).toBeUndefined();
    } finally {
      await w.close();
    }
  });

  it('refuses an object written twice, and pieces whose stated length is wrong', async () => {
    const w = await writer();
    try {
      await w.put('a.json', { a: 1 });
      await expect(w.putPieces('a.json', ['{}'], 2)).rejects.toThrow('object written twice: a.json');
      await expect(w.putOwned('a.json', Buffer.from('{}'))).rejects.toThrow('object written twice: a.json');
      await expect(w.putPieces('b.json', ['"é"'], 3)).rejects.toThrow('b.json: the pieces are 4 bytes, not the 3 stated');
      await w.flush();
      expect((await readFile(join(w.root, 'a.json'), 'utf8')).trim()).toBe('{"a":1}');
    } finally {
      await w.close();
    }
  });
});
