/**
 * The objects a run has written (relative key, sha256, size), held compactly: a national version lists about a
 * million objects, and an entry object plus a 64-character hex string each was ~120 MB of heap at the run's peak.
 * Hashes are kept as raw bytes in one growing buffer and sizes in a typed array; `get` and iteration make the
 * `{ sha256, bytes }` entries on demand, so callers read it like the Map it replaces.
 */

/** Hash and size of one written object. */
export interface Entry {
  sha256: string;
  bytes: number;
}

const HASH = 32;

/** Relative key -> hash and size, in write order; a ReadonlyMap of entries made on demand. */
export class WrittenObjects implements ReadonlyMap<string, Entry> {
  private readonly index = new Map<string, number>();
  private readonly rels: string[] = [];
  private sizes = new Float64Array(1024);
  private hashes = Buffer.alloc(1024 * HASH);

  /** Number of objects. */
  get size(): number {
    return this.rels.length;
  }

  /** Record `rel` of `bytes` bytes (hash unknown yet); returns its position. Throws when `rel` was recorded before. */
  add(rel: string, bytes: number): number {
    if (this.index.has(rel)) throw new Error(`object written twice: ${rel}`);
    const i = this.rels.length;
    if (i === this.sizes.length) {
      const sizes = new Float64Array(i * 2);
      sizes.set(this.sizes);
      this.sizes = sizes;
      const hashes = Buffer.alloc(i * 2 * HASH);
      this.hashes.copy(hashes);
      this.hashes = hashes;
    }
    this.index.set(rel, i);
    this.rels.push(rel);
    this.sizes[i] = bytes;
    return i;
  }

  /** Set the sha256 (raw 32 bytes at `digests[at..]`) of the object at position `i`. */
  setHash(i: number, digests: Uint8Array, at: number): void {
    this.hashes.set(digests.subarray(at, at + HASH), i * HASH);
  }

  /** The hex sha256 of the object at position `i`. */
  hashAt(i: number): string {
    return this.hashes.toString('hex', i * HASH, (i + 1) * HASH);
  }

  /** The size of the object at position `i`. */
  bytesAt(i: number): number {
    return this.sizes[i] as number;
  }

  /** The position of `rel`, or undefined. */
  positionOf(rel: string): number | undefined {
    return this.index.get(rel);
  }

  has(rel: string): boolean {
    return this.index.has(rel);
  }

  get(rel: string): Entry | undefined {
    const i = this.index.get(rel);
    return i === undefined ? undefined : { sha256: this.hashAt(i), bytes: this.bytesAt(i) };
  }

  keys(): MapIterator<string> {
    return this.rels.values();
  }

  *entries(): MapIterator<[string, Entry]> {
    for (let i = 0; i < this.rels.length; i++)
      yield [this.rels[i] as string, { sha256: this.hashAt(i), bytes: this.bytesAt(i) }];
  }

  *values(): MapIterator<Entry> {
    for (let i = 0; i < this.rels.length; i++) yield { sha256: this.hashAt(i), bytes: this.bytesAt(i) };
  }

  [Symbol.iterator](): MapIterator<[string, Entry]> {
    return this.entries();
  }

  forEach(fn: (value: Entry, key: string, map: ReadonlyMap<string, Entry>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}
