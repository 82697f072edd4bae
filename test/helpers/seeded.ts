/**
 * Random integers below n from `seed` (mulberry32, 32-bit integer arithmetic: a product past 2^53 in doubles loses its
 * low bits, and every draw of such a generator came out even), so every run of a test draws the same cases.
 */
export function seeded(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}
