/**
 * One deadline per request for all of its store reads: the edge (server, Lambda handler) runs each request inside
 * runWithDeadline, and the store's deadline wrapper (deadline.ts) bounds every read by what is left of it, so a request
 * that reads the pointer, the meta and its objects waits one deadline in all, never one per read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The instant (performance.now() milliseconds) by which every store read of the current request must finish. */
export interface RequestDeadline {
  readonly at: number;
  readonly ms: number;
}

const current = new AsyncLocalStorage<RequestDeadline>();

/** Run `fn` as one request whose store reads together may take at most `ms` milliseconds from now. */
export function runWithDeadline<T>(ms: number, fn: () => T): T {
  return current.run({ at: performance.now() + ms, ms }, fn);
}

/** The deadline of the request being served, or undefined outside one (start-up, background work). */
export function requestDeadline(): RequestDeadline | undefined {
  return current.getStore();
}
