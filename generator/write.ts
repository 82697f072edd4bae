/** Output I/O: a staging writer with bounded concurrency that hashes every object. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
