/** Seeded pseudo-random numbers (sfc32 seeded by splitmix32) and stateless hashing; never Math.random. */

/** A seeded generator of uniform numbers in [0, 1). */
export type Rng = () => number;

/** 32-bit FNV-1a hash of a string, for deriving named sub-seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Mixes integers into one well-distributed 32-bit value (murmur3 finaliser per word). */
export function mix32(...words: number[]): number {
  let h = 0x9e3779b9;
  for (const w of words) {
    let k = Math.imul(w | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Uniform in [0, 1) from a hash of the given integers (stateless, order-independent noise). */
export function hashUnit(...words: number[]): number {
  return mix32(...words) / 4294967296;
}

/** Standard normal from a hash of the given integers. */
export function hashNormal(...words: number[]): number {
  const u = (mix32(...words, 1) + 1) / 4294967297;
  const v = mix32(...words, 2) / 4294967296;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Zero-mean, unit-variance triangular noise from a hash of five integers (cheap stand-in for a normal in hot loops). */
export function hashNoise5(a: number, b: number, c: number, d: number, e: number): number {
  const h = mix32(a, b, c, d, e);
  return (((h & 0xffff) + (h >>> 16)) / 65535 - 1) * Math.SQRT2 * Math.sqrt(3);
}

/** sfc32 generator for `seed` and a named stream, so each concern draws independently of the others. */
export function makeRng(seed: number, stream: string): Rng {
  let s = (seed ^ hashString(stream)) >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next: Rng = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** Integer in [min, max] inclusive. */
export function randInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** Uniformly chosen element of a non-empty array. */
export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Standard normal draw (Box-Muller). */
export function normal(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Index drawn from a discrete distribution given by non-negative weights. */
export function pickWeighted(rng: Rng, weights: readonly number[]): number {
  let total = 0;
  for (const w of weights) total += w;
  let x = rng() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i] ?? 0;
    if (x < 0) return i;
  }
  return weights.length - 1;
}

/** Sampler over many weighted items: cumulative sums and binary search, O(log n) per draw. */
export class WeightedSampler {
  private readonly cumulative: Float64Array;
  /** Sum of all weights. */
  readonly total: number;

  /** Builds the sampler; weights must be non-negative with a positive sum. */
  constructor(weights: ArrayLike<number>) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    for (let i = 0; i < weights.length; i++) {
      sum += weights[i] ?? 0;
      this.cumulative[i] = sum;
    }
    if (!(sum > 0)) throw new Error('WeightedSampler needs a positive total weight');
    this.total = sum;
  }

  /** Index drawn in proportion to its weight. */
  draw(rng: Rng): number {
    const x = rng() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] ?? 0) > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
