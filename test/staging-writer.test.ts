/** The staging writer: every way of putting an object leaves the same bytes on disk, and `entries` holds their real sha256 and size. */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StagingWriter } from '../generator/write/write.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function writer(previous: string | null = null): Promise<StagingWriter> {
  const dir = await mkdtemp(join(tmpdir(), 'staging-writer-'));
  dirs.push(dir);
  return new StagingWriter(dir, previous);
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
      expect(new Map(w.entries)).toEqual(
        new Map([...expected].map(([rel, b]) => [rel, { sha256: sha(b), bytes: b.length }])),
      );
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
      await expect(w.putPieces('b.json', ['"é"'], 3)).rejects.toThrow(
        'b.json: the pieces are 4 bytes, not the 3 stated',
      );
      await w.flush();
      expect((await readFile(join(w.root, 'a.json'), 'utf8')).trim()).toBe('{"a":1}');
    } finally {
      await w.close();
    }
  });

  it('never hard-links to the previous version: every object is a file of its own, and editing one version in place leaves the other whole', async () => {
    const prev = await mkdtemp(join(tmpdir(), 'staging-previous-'));
    dirs.push(prev);
    await mkdir(join(prev, 'firms'));
    const doc = (i: number): unknown => ({ i, name: `office ${i}` });
    const text = (i: number): string => `${JSON.stringify(doc(i))}\n`;
    await writeFile(join(prev, 'firms/same.json'), text(1));
    await writeFile(join(prev, 'firms/changed.json'), text(2));
    // Damaged on disk: same size as the fresh bytes, other content. Cloning it would spread the damage.
    await writeFile(join(prev, 'firms/damaged.json'), text(3).replace('office', 'offica'));
    const w = await writer(prev);
    try {
      await w.put('firms/same.json', doc(1));
      await w.put('firms/changed.json', doc(22));
      await w.put('firms/damaged.json', doc(3));
      await w.put('firms/new.json', doc(4));
      await w.flush();
      const ino = async (dir: string, rel: string): Promise<number> => (await stat(join(dir, rel))).ino;
      // A clone where the file system makes them (btrfs, XFS), else written: at most the one identical object.
      expect(w.linked).toBeLessThanOrEqual(1);
      for (const rel of ['firms/same.json', 'firms/changed.json', 'firms/damaged.json']) {
        expect(await ino(w.root, rel), rel).not.toBe(await ino(prev, rel));
        expect((await stat(join(w.root, rel))).nlink, rel).toBe(1);
      }
      expect(await readFile(join(w.root, 'firms/same.json'), 'utf8')).toBe(text(1));
      // An edit in place of the previous version's file (as an operator's editor or a damaged disk would) stays there.
      await writeFile(join(prev, 'firms/same.json'), text(1).replace('office', 'offixe'));
      expect(await readFile(join(w.root, 'firms/same.json'), 'utf8')).toBe(text(1));
      expect(await readFile(join(w.root, 'firms/changed.json'), 'utf8')).toBe(text(22));
      expect(await readFile(join(w.root, 'firms/damaged.json'), 'utf8')).toBe(text(3));
      expect(await readFile(join(w.root, 'firms/new.json'), 'utf8')).toBe(text(4));
      expect(await readFile(join(prev, 'firms/damaged.json'), 'utf8'), 'the previous version is never written to').toBe(
        text(3).replace('office', 'offica'),
      );
      expect(w.entries.get('firms/same.json')?.sha256).toBe(sha(Buffer.from(text(1))));
    } finally {
      await w.close();
    }
  });
});
