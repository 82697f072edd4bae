/**
 * Standard Schema adapters for MCP tool registration: advertise the contract's zod schemas as plain JSON Schema
 * (root object inlined, not a root `$ref`) and choose who validates.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { withoutSafeIntegerBounds } from '../lib/json-schema-bounds.ts';

type Json = Record<string, unknown>;
type Target = 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (object & string);

/**
 * zod writes a schema carrying `.meta({ id })` as `{ $ref: "#/$defs/Id", $defs }`. Many MCP clients read
 * `inputSchema.properties` directly, so the referenced definition is lifted to the root; nested `$ref`s keep
 * pointing into the remaining `$defs`.
 */
export function inlineRootRef(schema: Json): Json {
  const ref = schema.$ref;
  const defs = schema.$defs as Record<string, Json> | undefined;
  const match = typeof ref === 'string' ? /^#\/\$defs\/([^/]+)$/.exec(ref) : null;
  if (!match || defs === undefined) return schema;
  const name = match[1] as string;
  const root = defs[name];
  if (root === undefined) return schema;
  // Nested references to the root definition itself would dangle once it is removed.
  if (JSON.stringify(root).includes(`"#/$defs/${name}"`)) return schema;
  const rest = Object.fromEntries(Object.entries(defs).filter(([k]) => k !== name));
  const { $ref: _ref, $defs: _defs, ...top } = schema;
  return { ...top, ...root, ...(Object.keys(rest).length > 0 ? { $defs: rest } : {}) };
}

/**
 * Tuples come out as 2020-12 `prefixItems` + `items: false`, which a draft-07 validator (the v1 SDK client's Ajv)
 * reads as "no items allowed" and so rejects every answer. Rewritten as a fixed-length array whose items match
 * the (here always identical) member schema, which means the same in both drafts.
 */
export function draftNeutralTuples(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draftNeutralTuples);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, draftNeutralTuples(v)]));
  const prefix = out.prefixItems;
  if (Array.isArray(prefix) && out.items === false) {
    const { prefixItems: _p, items: _i, ...rest } = out;
    const same = prefix.every((p) => JSON.stringify(p) === JSON.stringify(prefix[0]));
    return {
      ...rest,
      minItems: prefix.length,
      maxItems: prefix.length,
      ...(same && prefix.length > 0 ? { items: prefix[0] } : {}),
    };
  }
  return out;
}

/**
 * `make` remembered per target: the SDK asks for a tool's JSON Schema on every tools/list and every tools/call (to
 * check the result), and writing it from zod costs more than the search itself.
 */
function once(make: (target: Target) => Json): (target: Target) => Json {
  const made = new Map<Target, Json>();
  return (target) => {
    let json = made.get(target);
    if (json === undefined) made.set(target, (json = make(target)));
    return json;
  };
}

function jsonOf(schema: z.ZodType, io: 'input' | 'output', target: Target): Json {
  const std = schema['~standard'] as unknown as {
    jsonSchema: Record<'input' | 'output', (o: { target: Target }) => Json>;
  };
  return withoutSafeIntegerBounds(draftNeutralTuples(inlineRootRef(std.jsonSchema[io]({ target })))) as Json;
}

/**
 * Advertises `schema` (with `additionalProperties: false`, since unknown arguments are rejected) but validates
 * nothing: the arguments reach the handler as sent, so the Service's own validation gives the REST error text.
 */
export function advertiseOnly(
  schema: z.ZodObject,
): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  // No $schema: 2020-12 is MCP's default dialect, and tools/list is read in every conversation.
  const json = once((target: Target): Json => {
    const { $schema: _schema, ...rest } = jsonOf(schema, 'input', target);
    return { ...rest, additionalProperties: false };
  });
  return {
    '~standard': {
      version: 1,
      vendor: 'injury-attorney-directory',
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: ({ target }) => json(target), output: ({ target }) => json(target) },
    },
  };
}

/** `node` without `additionalProperties: false` anywhere in it. */
function withoutClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutClosedObjects);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'additionalProperties' && v === false))
      .map(([k, v]) => [k, withoutClosedObjects(v)]),
  );
}

/**
 * A tool's output schema: the compact model-facing form (format "text"), or with format "json" the REST body, which
 * the schema names and /openapi.json describes (written out in full it would triple tools/list). Nothing is validated
 * here: both forms are built by typed code from the Service's answer, and checking them with zod on every call cost
 * more than the search (the clients check results against this schema; the tests run both official clients).
 */
export function modelOutputSchema(
  compact: z.ZodObject,
  rest: string,
): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  const json = once((target: Target): Json => {
    // No $schema (2020-12 is MCP's default dialect) and no additionalProperties: false, to keep tools/list small.
    const { $schema: _schema, ...form } = withoutClosedObjects(jsonOf(compact, 'output', target)) as Json;
    return {
      type: 'object',
      anyOf: [
        form,
        { type: 'object', description: `With format "json": the body of ${rest}, as /openapi.json describes it.` },
      ],
    };
  });
  return {
    '~standard': {
      version: 1,
      vendor: 'injury-attorney-directory',
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: ({ target }) => json(target), output: ({ target }) => json(target) },
    },
  };
}
