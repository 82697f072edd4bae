/**
 * Lookup tables keyed by caller input must not reach Object.prototype: a city named "constructor" or a parameter named
 * "__proto__" is an ordinary miss. These helpers make such tables null-prototype objects.
 */
import { z } from 'zod';

/** A frozen copy of `entries` with no prototype. */
export function nullProto<V>(entries: Readonly<Record<string, V>>): Readonly<Record<string, V>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, V>, entries));
}

/** A zod string-keyed record whose parsed value has no prototype, for stored tables the shim looks up by caller input. */
export function dict<V extends z.ZodType>(value: V) {
  return z
    .record(z.string(), value)
    .transform((record) => Object.assign(Object.create(null) as Record<string, z.output<V>>, record));
}
