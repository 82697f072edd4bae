/**
 * A published meta.json read loosely, whatever its schema: the live version a new one replaces can be older than this
 * generator (schema 1 kept offices in shards/, schema 2 in the cell tree), and comparing with it, counting it or
 * publishing over it needs only what every schema has said.
 */
import { z } from 'zod';
import { dict } from '../../shim/core/dict.ts';
import { Layers, Meta, MetroSampling } from '../../shim/core/site-format.ts';

/** The schema this generator writes and the shim serves. */
export const CURRENT_SCHEMA: number = Meta.shape.schema_version.value;

/** Every schema a live version may have that the generator can still compare with (see changes-previous.ts). */
export const READABLE_SCHEMAS: ReadonlyMap<number, string> = new Map([
  [1, 'shards/'],
  [2, 'the cell tree'],
]);

/** The fields of meta.json every schema so far has carried. */
export const AnyMeta = z.object({
  schema_version: z.number().int().positive(),
  version: z.string(),
  week: z.string(),
  totals: z.object({ firms: z.number().int(), offices: z.number().int(), metros: z.number().int() }),
  metros: dict(MetroSampling),
  layers: Layers.optional(),
});
export type AnyMetaT = z.infer<typeof AnyMeta>;

/** What to say when a version of another schema reaches a step that reads only the current one. */
export function otherSchemaMessage(where: string, version: string, schema: number): string {
  const kind = READABLE_SCHEMAS.get(schema);
  const what = kind === undefined ? `schema ${schema}, which this generator does not know` : `schema ${schema} (offices in ${kind})`;
  return `${where}: version ${version} is ${what}; this step reads only schema ${CURRENT_SCHEMA} (offices in ${READABLE_SCHEMAS.get(CURRENT_SCHEMA) ?? '?'}): generate the week again to get a schema ${CURRENT_SCHEMA} version`;
}
