/** Output I/O: a staging writer with bounded concurrency that hashes every object, and the atomic folder swap. */
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { serialise, sha256Hex } from './json.ts';

/** Hash and size of one written object. */
export interface Entry {
  sha256: string;
  bytes: number;
}

/** Writes objects under a root folder, at most `concurrency` files at a time, remembering sha256 and size of each. */
export class StagingWriter {
  /** Relative key -> hash and size, in write order. */
  readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly dirs = new Map<string, Promise<unknown>>();
  private failure: unknown = undefined;

  constructor(
    readonly root: string,
    private readonly concurrency = 32,
  ) {}

  /** Serialise `value` (a Buffer is written as is) at `rel` (relative to root). Resolves with the size in bytes once the write is queued. */
  async put(rel: string, value: unknown): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    if (this.entries.has(rel)) throw new Error(`object written twice: ${rel}`);
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    const bytes = Buffer.isBuffer(value) ? value : serialise(value);
    this.entries.set(rel, { sha256: sha256Hex(bytes), bytes: bytes.length });
    const path = join(this.root, rel);
    const dir = dirname(path);
    let made = this.dirs.get(dir);
    if (made === undefined) this.dirs.set(dir, (made = mkdir(dir, { recursive: true })));
    const task: Promise<void> = made
      .then(() => writeFile(path, bytes))
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
    return bytes.length;
  }

  /** Wait for every queued write to finish or fail, without reporting failures (before removing the folder). */
  async settle(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  /** Wait for every queued write; rejects with the first write error. */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
  }
}

/** A new empty temporary folder next to `outDir` (same file system, so the final rename is atomic). */
export async function makeTempSibling(outDir: string): Promise<string> {
  await mkdir(dirname(outDir), { recursive: true });
  return mkdtemp(join(dirname(outDir), `${basename(outDir)}.tmp-`));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Replace `outDir` by the finished `tempDir`: move the old folder aside, rename the new one into place, then delete the
 * old one. rename(2) cannot replace a non-empty folder, so there is a moment between the two renames when `outDir` is
 * absent; a reader never sees a half-written folder. If another run puts a folder there in that moment, it is moved
 * aside too (a few times at most), so concurrent runs of the same input end with one complete folder.
 */
export async function swapIntoPlace(tempDir: string, outDir: string): Promise<void> {
  const olds: string[] = [];
  for (let attempt = 0; ; attempt++) {
    if (await exists(outDir)) {
      const old = `${tempDir}.old${attempt}`;
      try {
        await rename(outDir, old);
        olds.push(old);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    try {
      await rename(tempDir, outDir);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt < 3 && (code === 'ENOTEMPTY' || code === 'EEXIST')) continue;
      const first = olds.shift();
      if (first !== undefined && !(await exists(outDir))) await rename(first, outDir).catch(() => undefined);
      for (const old of olds) await rm(old, { recursive: true, force: true });
      throw err;
    }
  }
  for (const old of olds) await rm(old, { recursive: true, force: true });
}
