/** Store over a local folder (the generated site/). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertSafeKey, StoreError, type Store } from './types.ts';

/** Reads `<root>/<key>`; ENOENT and ENOTDIR are a missing key, anything else a StoreError. */
export class FolderStore implements Store {
  readonly kind = 'folder';
  constructor(readonly root: string) {}

  async get(key: string): Promise<Uint8Array | null> {
    assertSafeKey(key);
    try {
      return await readFile(join(this.root, key));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw new StoreError(`folder store could not read ${key}: ${code ?? 'error'}`, key, { cause: err });
    }
  }
}
