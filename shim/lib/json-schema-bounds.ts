/** Drops the integer bounds zod writes for every `.int()` (±Number.MAX_SAFE_INTEGER): artefacts, not part of the contract. */

/** A copy of a JSON Schema (or any JSON) without `minimum`/`maximum` equal to ±Number.MAX_SAFE_INTEGER. */
export function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}
