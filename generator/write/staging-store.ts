/**
 * A Store over a version still in a run's staging folder (not yet under `v/`, not live): `current.json` and the
 * version's `meta.json` come from memory, every other key under `v/<version>/` from the staging folder. Generate reads
 * its own version through it (the OpenAPI examples are answers of that version).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keys } from '../../shim/format/site-format.ts';
import type { Store } from '../../shim/store/types.ts';

/** Reads `version` from `objectsDir` with the given pointer and meta bytes. */
export class StagingStore implements Store {
  readonly kind = 'staging';
  private readonly root: string;
  private readonly objectsDir: string;
  private readonly pointer: Uint8Array;
  private readonly metaKey: string;
  private readonly meta: Uint8Array;
  constructor(objectsDir: string, version: string, pointer: Uint8Array, meta: Uint8Array) {
    this.objectsDir = objectsDir;
    this.root = keys.root(version);
    this.pointer = pointer;
    this.metaKey = keys.meta(version);
    this.meta = meta;
  }
  async get(key: string): Promise<Uint8Array | null> {
    if (key === keys.pointer) return this.pointer;
    if (key === this.metaKey) return this.meta;
    if (!key.startsWith(this.root)) return null;
    try {
      return await readFile(join(this.objectsDir, key.slice(this.root.length)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
