/** For the heap helpers run with `node --expose-gc`: what the process holds after full collections. */

/** Heap used plus array buffers (where typed arrays live), in bytes, after two full collections. */
export function heldAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
