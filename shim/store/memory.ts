/** In-memory store, for tests and benchmarks. */
import { assertSafeRange, sliceRange } from './range.ts';
import { assertSafeKey, type Store } from './types.ts';

/** A store over a Map of key to bytes. */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly objects: Map<string, Uint8Array>;
  constructor(objects: Map<string, Uint8Array> = new Map<string, Uint8Array>()) {
    this.objects = objects;
  }

  /** Put an object (test helper; the shim never writes). */
  set(key: string, value: Uint8Array | string): void {
    this.objects.set(key, typeof value === 'string' ? new TextEncoder().encode(value) : value);
  }

  async get(key: string): Promise<Uint8Array | null> {
    assertSafeKey(key);
    return this.objects.get(key) ?? null;
  }

  async getRange(key: string, start: number, end: number): Promise<Uint8Array | null> {
    assertSafeRange(key, start, end);
    const bytes = this.objects.get(key);
    return bytes === undefined ? null : sliceRange(this.kind, key, bytes, start, end);
  }
}
