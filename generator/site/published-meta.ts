/**
 * A published meta.json read loosely, whatever its schema: before a step reads a version it checks the version's
 * schema and refuses another one plainly (docs/SITE-FORMAT.md, "Schema versions"), and counting a live version or
 * publishing over it needs only what every schema has said.
 */
import { z } from 'zod';
import { SCHEMA_VERSIONS } from '../../shim/contract/constants.ts';
import { dict } from '../../shim/format/dict.ts';
import { Layers, MetroSampling } from '../../shim/format/site-format.ts';

/** The meta.json schema this generator writes and the shim serves. */
export const CURRENT_SCHEMA: number = SCHEMA_VERSIONS.meta;

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

/** What to say when a version of another meta.json schema reaches a step that reads only the current one. */
export function otherSchemaMessage(where: string, version: string, schema: number): string {
  return (
    `${where}: version ${version} is meta schema ${schema}, but this release reads meta schema ${CURRENT_SCHEMA} only: ` +
    'generate the week again with this release and publish it (docs/SITE-FORMAT.md, "Schema versions")'
  );
}
