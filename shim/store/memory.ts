/** In-memory store, for tests and benchmarks. */
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
}
