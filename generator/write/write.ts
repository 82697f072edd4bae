/** Output I/O: a staging writer that hands objects to worker threads in batches; the workers write and hash them. */
import { Worker } from 'node:worker_threads';
import { WrittenObjects } from './written.ts';

/** Bytes per batch handed to a worker: big enough that the per-message cost vanishes, small enough to stay cheap. */
const BATCH_BYTES = 4 << 20;
/** Objects per batch at most (many tiny objects should not wait for a full buffer). */
const BATCH_OBJECTS = 4096;
/** Batches handed over and not yet written; the writer waits beyond this, so memory stays bounded. */
const MAX_IN_FLIGHT = 4;
const NEWLINE = 0x0a;
/**
 * Worker threads writing batches in turn. Creating a million small files is the slowest part of a national run and
 * mostly file-system calls, which two threads overlap (measured: 100k 5 KB files 6.5-9.1 s on one, 5.4-5.9 s on two).
 */
const WORKERS = 2;

interface Pending {
  /** Positions of the batch's objects in `entries`. */
  at: number[];
}

/** A write failure reported by the worker, as the fs error it was. */
function workerError(e: { message: string; code?: string; path?: string }): Error {
  return Object.assign(
    new Error(e.message),
    e.code !== undefined ? { code: e.code } : {},
    e.path !== undefined ? { path: e.path } : {},
  );
}

/**
 * Writes objects under a root folder and remembers sha256 and size of each. `put` serialises on the calling thread and
 * copies the bytes into a batch; full batches go to worker threads in turn, each writing every file of its batch with
 * synchronous calls (no promise or thread-pool round trip per file) and hashing it, so writing overlaps the caller's
 * computing. Hashes are filled in when a worker reports its batch: read `entries` after `flush`.
 */
export class StagingWriter {
  /** Relative key -> hash and size, in write order. */
  readonly entries = new WrittenObjects();
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private waiters: (() => void)[] = [];
  private failure: unknown = undefined;
  private nextId = 0;
  private buf: Buffer = Buffer.allocUnsafeSlow(BATCH_BYTES);
  /**
   * Batch buffers the workers have handed back, reused: a new 4 MiB buffer per batch is external memory, and V8 starts
   * a full collection of the whole heap each time external memory grows by a few tens of MB; at a million offices
   * (5 GB written) that was about a hundred collections of a 2 GB heap.
   */
  private free: ArrayBuffer[] = [];
  private used = 0;
  private rels: string[] = [];
  private lens: number[] = [];
  private batchAt: number[] = [];
  /** Milliseconds `put` spent waiting for the workers (all batches in flight): how far writing lags computing. */
  waitedMs = 0;
  /** Objects cloned (copy-on-write) from the previous version's identical file instead of written (after `flush`). */
  linked = 0;

  readonly root: string;
  /**
   * `previous`: the folder of the version the site serves now, or null. An object whose bytes equal its file there
   * is a copy-on-write clone of it where the file system has them, else written; never a hard link, which an edit in
   * place of one version would carry into the other.
   */
  constructor(root: string, previous: string | null = null) {
    this.root = root;
    this.workers = Array.from({ length: WORKERS }, () => {
      const worker = new Worker(new URL('./write-worker.js', import.meta.url), { workerData: { root, previous } });
      worker.on(
        'message',
        (msg: {
          id: number;
          digests?: ArrayBuffer;
          linked?: number;
          buf?: ArrayBuffer;
          error?: { message: string; code?: string; path?: string };
        }) => {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          this.linked += msg.linked ?? 0;
          if (msg.buf !== undefined && msg.buf.byteLength === BATCH_BYTES) this.free.push(msg.buf);
          if (msg.error !== undefined) this.failure ??= workerError(msg.error);
          else if (p !== undefined && msg.digests !== undefined) {
            const digests = new Uint8Array(msg.digests);
            p.at.forEach((i, k) => this.entries.setHash(i, digests, k * 32));
          }
          this.wake();
        },
      );
      worker.on('error', (err) => {
        this.failure ??= err;
        this.pending.clear();
        this.wake();
      });
      return worker;
    });
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  private async until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Hand the current batch to the next worker. */
  private send(): void {
    if (this.rels.length === 0) return;
    // allocUnsafeSlow: a plain ArrayBuffer of its own (not the shared pool), so it can be transferred.
    this.post(this.rels, this.lens, this.batchAt, this.buf.buffer as ArrayBuffer);
    const reused = this.free.pop();
    this.buf = reused === undefined ? Buffer.allocUnsafeSlow(BATCH_BYTES) : Buffer.from(reused);
    this.used = 0;
    this.rels = [];
    this.lens = [];
    this.batchAt = [];
  }

  /** Hand a batch (its buffer transferred, not copied) to the next worker. */
  private post(rels: string[], lens: number[], at: number[], buf: ArrayBuffer): void {
    const id = this.nextId++;
    this.pending.set(id, { at });
    (this.workers[id % this.workers.length] as Worker).postMessage({ id, rels, lens, buf }, [buf]);
  }

  /** Wait until fewer than MAX_IN_FLIGHT batches are out (or a write failed, which is thrown). */
  private async slot(): Promise<void> {
    const t = performance.now();
    await this.until(() => this.pending.size < MAX_IN_FLIGHT || this.failure !== undefined);
    this.waitedMs += performance.now() - t;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Serialise `value` (a Buffer is written as is) at `rel` (relative to root). Resolves with the size in bytes once queued. */
  async put(rel: string, value: unknown): Promise<number> {
    if (Buffer.isBuffer(value)) return this.add(rel, value);
    return this.putJson(rel, JSON.stringify(value));
  }

  /**
   * Write `data` at `rel` as a batch of its own, its memory handed to the worker without a copy: `data` is unusable
   * afterwards. For one big object (the manifest of a million objects is ~150 MB, which a batch copy would double).
   */
  async putOwned(rel: string, data: Buffer): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    this.send();
    await this.slot();
    const own = data.byteOffset === 0 && data.buffer.byteLength === data.length && data.buffer instanceof ArrayBuffer;
    const buf = own ? data.buffer : (Uint8Array.prototype.slice.call(data).buffer as ArrayBuffer);
    this.post([rel], [data.length], [this.entries.add(rel, data.length)], buf);
    return data.length;
  }

  /** Write `json` (already serialised, without the trailing newline every object ends with) at `rel`. */
  async putJson(rel: string, json: string): Promise<number> {
    // Not `${json}\n`: for the manifest of a million objects that would be another copy of 150 MB of text.
    const len = Buffer.byteLength(json, 'utf8') + 1;
    return this.reserve(rel, len, (buf, at) => {
      buf.write(json, at, 'utf8');
      buf[at + len - 1] = NEWLINE;
    });
  }

  /**
   * Write the concatenation of `pieces` (UTF-8; `bytes` is their total encoded length) and the trailing newline every
   * object ends with at `rel`, each piece encoded straight into the batch.
   */
  async putPieces(rel: string, pieces: readonly string[], bytes: number): Promise<number> {
    return this.reserve(rel, bytes + 1, (buf, start) => {
      let at = start;
      for (const p of pieces) at += buf.write(p, at, 'utf8');
      if (at !== start + bytes) throw new Error(`${rel}: the pieces are ${at - start} bytes, not the ${bytes} stated`);
      buf[at] = NEWLINE;
    });
  }

  private async add(rel: string, data: Buffer): Promise<number> {
    return this.reserve(rel, data.length, (buf, at) => data.copy(buf, at));
  }

  /** Room for `len` bytes at `rel` in the current batch (sending full ones), filled by `fill`. */
  private async reserve(rel: string, len: number, fill: (buf: Buffer, at: number) => void): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    if (this.entries.has(rel)) throw new Error(`object written twice: ${rel}`);
    if (this.used + len > this.buf.length || this.rels.length >= BATCH_OBJECTS) {
      this.send();
      await this.slot();
      // An object bigger than a batch gets a batch of its own.
      if (len > this.buf.length) {
        this.free.push(this.buf.buffer as ArrayBuffer);
        this.buf = Buffer.allocUnsafeSlow(len);
      }
    }
    const at = this.entries.add(rel, len);
    fill(this.buf, this.used);
    this.used += len;
    this.rels.push(rel);
    this.lens.push(len);
    this.batchAt.push(at);
    return len;
  }

  /** Wait for every queued write to finish or fail, without reporting failures (before removing the folder). */
  async settle(): Promise<void> {
    this.send();
    await this.until(() => this.pending.size === 0);
  }

  /** Wait for every queued write; rejects with the first write error. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stop the workers (after flush or settle). */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
