/**
 * How far the generator's heap may grow past what the last full collection kept. A national run's peak RSS is set by
 * V8's growth policy rather than by what the run holds: at a million offices a full collection kept 1.05-1.15 GB, yet
 * the heap had grown to 2.3 GB before it ran (V8 lets a heap grow up to several times its live size between
 * collections). Growing at most HEAP_GROWING_PERCENT past the live size keeps the heap near 1.6 GB at the cost of some
 * more collections. The same setting as `node --heap-growing-percent=40`, set by the generator's command lines
 * (generate and release; a process flag, so not by `generate()` inside a test or server process); `NODE_OPTIONS` with that flag overrides it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Percent the heap may grow past its live size between full collections. */
export const HEAP_GROWING_PERCENT = 40;

/** Apply HEAP_GROWING_PERCENT to this process unless the node command line or NODE_OPTIONS set it. */
export function limitHeapGrowth(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) =>
    /^--heap[-_]growing[-_]percent/.test(a),
  );
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  fullCollection = () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * V8's memory-reducing full collection, once limitHeapGrowth has run in this process: the `last-resort` flavor of the
 * `gc` extension, which compacts every page it can and hands the emptied pages back to the system. A plain full
 * collection keeps them: at a million offices it left the committed heap 400 MB above the live size and 300-360 MB of
 * freed pages in V8's page pool, all of it still resident, and the next step's allocations came on top of that.
 */
let fullCollection: (() => void) | undefined;

/**
 * A full collection now, where the command line allowed it (limitHeapGrowth; else nothing). Called by the generator
 * right after a step drops most of what it held: otherwise V8 lets the heap grow 40% past the size the last collection
 * found, which at a million offices was measured before that garbage was dropped, and the next step's allocations land
 * on top of it (the peaks of both weeks were at such steps). V8 runs two collections for each call (the second finds
 * nothing more), 2-5 s in all at a million offices on a busy machine: the price of handing the pages back.
 */
export function collectDropped(): void {
  fullCollection?.();
}
