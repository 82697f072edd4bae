/** Store over a local folder (the generated site/). */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { assertSafeKey, StoreError, type ReadOptions, type Store } from './types.ts';

/**
 * Reads `<root>/<key>`; ENOENT and ENOTDIR are a missing key, anything else a StoreError. The file is opened with
 * O_NONBLOCK and must be a regular file: opening a FIFO (or a device) for reading would otherwise block a libuv
 * threadpool thread until a writer appears, and four such opens stall every file operation of the process. Once the
 * read's signal fires it stops between file operations and closes the file (an operation already running on the
 * threadpool cannot be cut short; it finishes and is dropped).
 */
export class FolderStore implements Store {
  readonly kind = 'folder';
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  async get(key: string, options: ReadOptions = {}): Promise<Uint8Array | null> {
    assertSafeKey(key);
    const { signal } = options;
    const stopIfAborted = (): void => {
      if (signal?.aborted) throw new StoreError(`folder store gave up reading ${key}: its deadline passed`, key);
    };
    stopIfAborted();
    let file;
    try {
      file = await open(join(this.root, key), constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw new StoreError(`folder store could not read ${key}: ${code ?? 'error'}`, key, { cause: err });
    }
    try {
      stopIfAborted();
      const stat = await file.stat();
      if (!stat.isFile()) throw new StoreError(`folder store could not read ${key}: not a regular file`, key);
      // The size is known from the fstat above: read it in place (readFile would fstat again).
      const bytes = Buffer.allocUnsafe(stat.size);
      let at = 0;
      while (at < bytes.length) {
        stopIfAborted();
        const { bytesRead } = await file.read(bytes, at, bytes.length - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return at === bytes.length ? bytes : bytes.subarray(0, at);
    } catch (err) {
      if (err instanceof StoreError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new StoreError(`folder store could not read ${key}: ${code ?? 'error'}`, key, { cause: err });
    } finally {
      await file.close();
    }
  }
}
