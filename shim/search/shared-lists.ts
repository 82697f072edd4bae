/**
 * Shared lists of the cell tree (cell-format.ts) decoded into typed arrays, once per parsed object: each stored list is
 * [unit step, offices, ...] with the first step the unit itself and each later one the difference from the previous
 * unit, so units come out ascending.
 */

/** Lists 0 .. n - 1: list j is unit[at[j]] .. unit[at[j + 1] - 1] (absolute unit numbers) with offices[...] beside them. */
export interface SharedLists {
  at: Int32Array;
  unit: Int32Array;
  offices: Int32Array;
  /** Largest unit named (-1 when none), checked against the index before any is marked. */
  maxUnit: number;
  /** A later step of 0: a unit listed twice, which the format forbids (it would be counted twice). */
  repeated: boolean;
}

const decoded = new WeakMap<readonly number[][], SharedLists>();

/** The decoded form of `lists` (cached by the parsed array). */
export function sharedLists(lists: readonly number[][]): SharedLists {
  let d = decoded.get(lists);
  if (d !== undefined) return d;
  const n = lists.length;
  const at = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) at[j + 1] = (at[j] ?? 0) + ((lists[j]?.length ?? 0) >> 1);
  const total = at[n] ?? 0;
  const unit = new Int32Array(total);
  const offices = new Int32Array(total);
  let maxUnit = -1;
  let repeated = false;
  for (let j = 0, k = 0; j < n; j++) {
    const list = lists[j] ?? [];
    let u = 0;
    for (let q = 0; q + 1 < list.length; q += 2, k++) {
      const step = list[q] ?? 0;
      if (q > 0 && step === 0) repeated = true;
      u += step;
      unit[k] = u;
      offices[k] = list[q + 1] ?? 0;
    }
    if (u > maxUnit && list.length > 0) maxUnit = u;
  }
  d = { at, unit, offices, maxUnit, repeated };
  decoded.set(lists, d);
  return d;
}
