/** Store over a local folder (the generated site/). */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assertSafeRange, pastEnd } from './range.ts';
import { assertSafeKey, StoreError, type ReadOptions, type Store } from './types.ts';

/** An open regular file, its size, and a check that throws once the read's signal has fired. */
interface OpenFile {
  file: FileHandle;
  size: number;
  stopIfAborted: () => void;
}

/**
 * Reads `<root>/<key>`; ENOENT and ENOTDIR are a missing key, anything else a StoreError. The file is opened with
 * O_NONBLOCK and must be a regular file: opening a FIFO (or a device) for reading would otherwise block a libuv
 * threadpool thread until a writer appears, and four such opens stall every file operation of the process. Once the
 * read's signal fires it stops between file operations and closes the file (an operation already running on the
 * threadpool cannot be cut short; it finishes and is dropped). A range is read in place at its offset.
 */
export class FolderStore implements Store {
  readonly kind = 'folder';
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  async get(key: string, options: ReadOptions = {}): Promise<Uint8Array | null> {
    assertSafeKey(key);
    // The size is known from the fstat: read it in place (readFile would fstat again).
    return this.read(key, options, ({ file, size, stopIfAborted }) => readAt(file, 0, size, stopIfAborted));
  }

  async getRange(key: string, start: number, end: number, options: ReadOptions = {}): Promise<Uint8Array | null> {
    assertSafeRange(key, start, end);
    return this.read(key, options, async ({ file, size, stopIfAborted }) => {
      if (size < end) throw pastEnd(this.kind, key, start, end, size);
      const bytes = await readAt(file, start, end - start, stopIfAborted);
      // The file shrank after the fstat: the range is no longer there.
      if (bytes.byteLength < end - start) throw pastEnd(this.kind, key, start, end, start + bytes.byteLength);
      return bytes;
    });
  }

  /** Opens `key` as a regular file, runs `use` on it and closes it; null when the key does not exist. */
  private async read(
    key: string,
    { signal }: ReadOptions,
    use: (open: OpenFile) => Promise<Uint8Array>,
  ): Promise<Uint8Array | null> {
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
      return await use({ file, size: stat.size, stopIfAborted });
    } catch (err) {
      if (err instanceof StoreError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new StoreError(`folder store could not read ${key}: ${code ?? 'error'}`, key, { cause: err });
    } finally {
      await file.close();
    }
  }
}

/** Up to `length` bytes of `file` from `position`; fewer only when the file ends first. */
async function readAt(
  file: FileHandle,
  position: number,
  length: number,
  stopIfAborted: () => void,
): Promise<Uint8Array> {
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  while (at < length) {
    stopIfAborted();
    const { bytesRead } = await file.read(bytes, at, length - at, position + at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return at === length ? bytes : bytes.subarray(0, at);
}
