/**
 * openapi.json as agent builders import it: operation descriptions of at most 300 characters, every response field
 * described, an example for every parameter and every response body, and the examples the sample data's own answers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectExamples } from '../generator/openapi/openapi-examples.ts';
import { serialise } from '../generator/write/json.ts';
import { buildOpenApi } from '../generator/openapi/openapi.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { ResponseSchemas } from './helpers/openapi.ts';
import { request } from './helpers/http.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  description?: string;
  parameters?: { name: string; example?: unknown }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

/** Importers of OpenAPI tools for agents cut operation descriptions at this length. */
const MAX_OPERATION_DESCRIPTION = 300;

let server: TestApp;
let doc: Json;

beforeAll(async () => {
  server = await startTestApp();
  doc = (await request(server.url, '/openapi.json')).body as Json;
});
afterAll(async () => {
  await server?.close();
});

function operations(): [string, Operation][] {
  const out: [string, Operation][] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) out.push([`${method.toUpperCase()} ${path}`, op]);
  }
  return out;
}

function component(ref: string): Json {
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  const found = name === undefined ? undefined : (doc.components as { schemas: Record<string, Json> }).schemas[name];
  if (found === undefined) throw new Error(`unresolved ${ref}`);
  return found;
}

/** A schema says what it is: a description of its own, or a reference (alone or nullable) to a described component. */
function described(schema: Json): boolean {
  if (typeof schema.description === 'string' && schema.description.length > 0) return true;
  if (typeof schema.$ref === 'string') return described(component(schema.$ref));
  const members = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return members !== undefined && members.some((m) => typeof m.$ref === 'string' && described(component(m.$ref)));
}

/** Every property reachable from `schema` without a description, as dotted paths. */
function undescribed(schema: Json, at: string, seen = new Set<Json>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const out: string[] = [];
  if (typeof schema.$ref === 'string') return undescribed(component(schema.$ref), at, seen);
  for (const member of [...((schema.anyOf ?? []) as Json[]), ...((schema.oneOf ?? []) as Json[])])
    out.push(...undescribed(member, at, seen));
  if (typeof schema.items === 'object' && schema.items !== null)
    out.push(...undescribed(schema.items as Json, `${at}[]`, seen));
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    if (!described(property)) out.push(`${at}.${name}`);
    out.push(...undescribed(property, `${at}.${name}`, seen));
  }
  return out;
}

describe('operations', () => {
  it(`every operation description is at most ${MAX_OPERATION_DESCRIPTION} characters, and none is empty`, () => {
    const lengths = Object.fromEntries(operations().map(([name, op]) => [name, op.description?.length ?? 0]));
    for (const [name, length] of Object.entries(lengths)) {
      expect(length, name).toBeGreaterThan(20);
      expect(length, name).toBeLessThanOrEqual(MAX_OPERATION_DESCRIPTION);
    }
  });

  it('the search keeps the caller rules in its description, the bounds in its parameters', () => {
    const search = operations().find(([name]) => name === 'GET /v1/attorneys')?.[1];
    expect(search?.description).toMatch(/own location of the person/);
    expect(search?.description).toMatch(/covered is false/);
    const params = Object.fromEntries((search?.parameters ?? []).map((p) => [p.name, JSON.stringify(p)]));
    expect(params.radius_miles).toMatch(/1 to 50, default 15/);
    expect(params.limit).toMatch(/1 to 25, default 10/);
  });
});

describe('response fields', () => {
  it('every field of every JSON response is described, covered, sponsored, profile_type and offices_within_radius in words', () => {
    const missing: string[] = [];
    for (const [name, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (type.includes('json') && media.schema !== undefined)
            missing.push(...undescribed(media.schema, `${name} ${status}`));
        }
      }
    }
    expect(missing).toEqual([]);
    const result = component('#/components/schemas/Result').properties as Record<string, Json>;
    const attorneys = component('#/components/schemas/AttorneysResponse').properties as Record<string, Json>;
    expect(attorneys.covered?.description).toMatch(/no data there .*does not mean there are no lawyers/);
    expect(result.sponsored?.description).toMatch(/never affects order/);
    expect(result.profile_type?.description).toMatch(/"enhanced" is/);
    expect(result.offices_within_radius?.description).toMatch(/offices are within the radius/);
  });
});

describe('examples', () => {
  it('every parameter and every response body has an example, and each is valid against its schema', () => {
    const schemas = new ResponseSchemas(doc as ConstructorParameters<typeof ResponseSchemas>[0]);
    const missing: string[] = [];
    const invalid: string[] = [];
    for (const [name, op] of operations()) {
      const [method = '', path = ''] = name.split(' ');
      for (const p of op.parameters ?? []) if (p.example === undefined) missing.push(`${name} parameter ${p.name}`);
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
        if (media.example === undefined) missing.push(`${name} request ${type}`);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const values =
            media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((e) => e.value);
          if (values.length === 0) missing.push(`${name} ${status} ${type}`);
          if (!type.includes('json')) continue;
          const concrete = path.replace('{listing_id}', 'l_aaaaaaaaaaaaaaaa').replace('{code}', 'not_found');
          for (const value of values)
            invalid.push(
              ...schemas.check(method, concrete, Number(status), type, value).map((e) => `${name} ${status}: ${e}`),
            );
        }
      }
    }
    expect(missing).toEqual([]);
    expect(invalid).toEqual([]);
  });

  it('are the answers of the served version itself, written by generate', { timeout: 60_000 }, async () => {
    const site = process.env.TEST_SITE_DIR as string;
    const { version } = Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8')));
    const metros = JSON.parse(await readFile('data/metros.json', 'utf8')) as {
      metros: { principal_cities: string[] }[];
    };
    const cities = metros.metros.map((m) => m.principal_cities[0] as string);
    const examples = await collectExamples(new FolderStore(site), cities);
    const stored = await readFile(join(site, keys.openapi(version)));
    expect(stored.equals(Buffer.from(serialise(buildOpenApi(examples, { synthetic: true }))))).toBe(true);
  });

  it('show a covered search, an uncovered one, and a listing the service knows', async () => {
    const search = operations().find(([name]) => name === 'GET /v1/attorneys')?.[1];
    const examples = search?.responses['200']?.content?.['application/json']?.examples ?? {};
    expect(examples.covered?.value).toMatchObject({ covered: true });
    expect((examples.covered?.value as { results: unknown[] }).results.length).toBeGreaterThan(0);
    expect(examples.not_covered?.value).toMatchObject({ covered: false, results: [] });
    const listing = operations().find(([name]) => name === 'GET /v1/firms/{listing_id}')?.[1]?.parameters?.[0]
      ?.example as string;
    expect((await request(server.url, `/v1/firms/${listing}`)).status).toBe(200);
  });
});
