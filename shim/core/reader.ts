/** Read access to one published version of the site, as the core sees it. Implemented in shim/site-reader.ts. */
import type { ZodType } from 'zod';
import { StoreError } from './errors.ts';
import type { MetaT } from './site-format.ts';

/** One consistent version of the site: every read goes to the same `version` (never two versions in one answer). */
export interface SiteReader {
  readonly version: string;
  readonly meta: MetaT;
  /**
   * The parsed object at `key` (a full store key, e.g. keys.cellBlock(version, cell)), or null when it does not exist.
   * Rejects with StoreError when the store fails or the object does not match `schema`.
   */
  json<T>(key: string, schema: ZodType<T>): Promise<T | null>;
}

/** The parsed object at `key`, which the version must hold: missing is a StoreError (503), never an empty answer. */
export async function readRequired<T>(reader: SiteReader, key: string, schema: ZodType<T>, why = 'is missing from the served version'): Promise<T> {
  const value = await reader.json(key, schema);
  if (value === null) throw new StoreError(`${key} ${why}`, key);
  return value;
}
