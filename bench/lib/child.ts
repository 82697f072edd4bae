/** Child processes of the benchmarks: node with the tsx loader, a JSON line on stdout as the answer. */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Calls `onLine` with each complete line of a stream of chunks (a line split across chunks is joined first). */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  let rest = '';
  return {
    push(chunk) {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    },
    end() {
      if (rest !== '') onLine(rest);
      rest = '';
    },
  };
}

/** A started child that printed its first JSON line. */
export interface JsonChild<T> {
  child: ChildProcess;
  first: T;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Start `node [nodeArgs] --import tsx <script> [args]` in the repository and resolve with its first stdout line parsed as
 * JSON. Its stderr is passed through with a prefix; a child that exits first rejects.
 */
export function startJsonChild<T>(
  script: string,
  args: string[],
  opts: { nodeArgs?: string[]; env?: Record<string, string>; tag: string },
): Promise<JsonChild<T>> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', script, ...args], {
    cwd: REPO,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const err = lineSplitter((line) => {
    if (line.trim() !== '') process.stderr.write(`  [${opts.tag}] ${line}\n`);
  });
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  child.stderr?.on('end', () => err.end());
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolvePromise, reject) => {
    let buffered = '';
    let settled = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const nl = buffered.indexOf('\n');
      if (nl < 0 || settled) return;
      settled = true;
      try {
        const first = JSON.parse(buffered.slice(0, nl)) as T;
        resolvePromise({
          child,
          first,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      } catch (err) {
        child.kill('SIGTERM');
        reject(new Error(`${opts.tag}: first line is not JSON: ${buffered.slice(0, 200)}`, { cause: err }));
      }
    });
    child.once('exit', (code, signal) => {
      if (!settled) {
        settled = true;
        reject(new Error(`${opts.tag} exited (${code ?? signal}) before answering`));
      }
    });
  });
}
