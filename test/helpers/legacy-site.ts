/**
 * Turn a generated version in a site folder into one an older release wrote, in place, for tests of a live version
 * older than this release (docs/SITE-FORMAT.md, "Schema versions"): the cell tree of an older cell schema, or a
 * meta.json of an older meta schema. The manifest and meta.json's hashes are kept true to the rewritten objects.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { serialise, serialiseAt, sha256Hex } from '../../generator/write/json.ts';
import { keys } from '../../shim/format/site-format.ts';
import { paths } from '../../shim/format/paths.ts';
import { decodeStored } from '../../shim/format/site-json.ts';
import { decodeCoords, decodeSteps, type Coords, type StoredCoords } from '../../shim/format/block-coords.ts';

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** The hash fields cell schema 4 added, by object: a schema-3 object is the schema-4 one without them. */
const HASH_FIELDS = ['group_sha256', 'shared_sha256', 'block_sha256', 'records_sha256'];

/**
 * Rewrite the cell tree of version `version` of the folder site `dir` as cell schema `schema` (6: blocks as JSON at
 * `cells/blocks/<cell>.json`; 5: blocks with lat and lng columns of degrees; 4: schema 5 without the index's block
 * list; 3: schema 4 without the hashes; 2: the same, marked 2, which is as far as a reader gets before refusing it).
 */
export async function downgradeCells(dir: string, version: string, schema: 2 | 3 | 4 | 5 | 6): Promise<void> {
  await rewriteCells(dir, version, 6);
  if (schema === 6) return;
  const root = join(dir, keys.root(version));
  for (const rel of await filesUnder(join(root, 'cells'))) {
    const path = join(root, 'cells', rel);
    let value = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    if (schema < 5) delete value.blocks;
    if (rel.startsWith('blocks/')) value = withDegrees(value);
    if (schema < 4) for (const field of HASH_FIELDS) delete value[field];
    await writeFile(path, serialise({ ...value, schema_version: schema }));
  }
  const metaPath = join(root, 'meta.json');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as {
    sha256?: Record<string, string>;
    cell_index?: unknown;
  };
  if (meta.sha256 !== undefined)
    meta.sha256['cells/index.json'] = sha256Hex(await readFile(join(root, 'cells', 'index.json')));
  // Those releases' meta.json carried no cell index.
  delete meta.cell_index;
  await writeFile(metaPath, serialise(meta));
  await rewriteManifest(dir, version);
}

/**
 * Rewrite the cell tree of version `version` of the folder site `dir` as cell schema 7 wrote it: the same values, every
 * object marked 7, each group tree and shared page as JSON at `cells/groups/<cell>.json` and `cells/shared/<page>.json`
 * (blocks stay binary), with every hash up to the pointer true to the rewritten objects (a schema-7 week as the
 * previous release published it).
 */
export async function downgradeToCells7(dir: string, version: string): Promise<void> {
  await rewriteCells(dir, version, 7);
}

/**
 * Rewrite the cell tree of version `version` of the folder site `dir` as cell schema 8 wrote it: the same values, every
 * object marked 8, blocks without their record chunks' lengths and offset, and no packs (cell schema 8 weeks were
 * written with and without them; the reader of either reads objects whole without), with every hash up to the pointer
 * true to the rewritten objects and no cell index in meta.json (as the release that introduced schema 8 wrote it).
 */
export async function downgradeToCells8(dir: string, version: string): Promise<void> {
  await rewriteCells(dir, version, 8);
}

/** Where an object of the cell tree lives in cell schema `schema` (blocks as JSON before schema 7), relative to `cells/`. */
function cellRel(kind: 'groups' | 'shared' | 'blocks', cell: string, schema: number): string {
  if (kind === 'groups') return paths.cellGroup(cell, schema).slice('cells/'.length);
  if (kind === 'shared') return paths.cellShared(cell, schema).slice('cells/'.length);
  return schema >= 7 ? paths.cellBlock(cell).slice('cells/'.length) : `blocks/${cell}.json`;
}

/** The cell tree of a version rewritten as cell schema `schema` (6 to 8) codes it, every hash recomputed up to the pointer. */
async function rewriteCells(dir: string, version: string, schema: 6 | 7 | 8): Promise<void> {
  const root = join(dir, keys.root(version));
  const cells = join(root, 'cells');
  // No earlier release wrote packs; the rewritten blocks would not be the packed ones anyway.
  await rm(join(cells, 'packs'), { recursive: true, force: true });
  const rels = await filesUnder(cells);
  const sha = new Map<string, string>();
  const rewrite = async (rel: string, edit: (value: Record<string, unknown>) => void, to = rel): Promise<void> => {
    const value = decodeStored(await readFile(join(cells, rel)), `cells/${rel}`) as Record<string, unknown>;
    edit(value);
    const bytes = serialiseAt(`cells/${to}`, { ...value, schema_version: schema });
    if (to !== rel) await rm(join(cells, rel));
    await writeFile(join(cells, to), bytes);
    sha.set(`cells/${to}`, sha256Hex(bytes));
  };
  const cellOf = (rel: string): string => rel.slice(rel.indexOf('/') + 1, rel.lastIndexOf('.'));
  const renew = (hashes: Record<string, string>, kind: 'groups' | 'shared' | 'blocks'): Record<string, string> =>
    Object.fromEntries(
      Object.keys(hashes).map((cell) => [cell, sha.get(`cells/${cellRel(kind, cell, schema)}`) as string]),
    );
  for (const rel of rels.filter((r) => r.startsWith('records/'))) await rewrite(rel, () => undefined);
  for (const rel of rels.filter((r) => r.startsWith('blocks/'))) {
    const cell = cellOf(rel);
    await rewrite(
      rel,
      (b) => {
        b.records_sha256 = (b.records_sha256 as string[]).map((_, k) => sha.get(paths.cellRecords(cell, k)));
        // Before cell schema 9 a block gave no record chunk lengths (left out of the binary block as empty fields are).
        if (schema < 7) delete b.records_bytes;
        else if (schema < 9) b.records_bytes = [];
      },
      cellRel('blocks', cell, schema),
    );
  }
  for (const rel of rels.filter((r) => r.startsWith('shared/')))
    await rewrite(rel, () => undefined, cellRel('shared', cellOf(rel), schema));
  for (const rel of rels.filter((r) => r.startsWith('groups/')))
    await rewrite(
      rel,
      (g) => {
        g.shared_sha256 = renew(g.shared_sha256 as Record<string, string>, 'shared');
        g.block_sha256 = renew(g.block_sha256 as Record<string, string>, 'blocks');
        // Before cell schema 9 a group gave no lengths of its blocks' record chunks (JSON groups, 7, had no field).
        if (schema < 8) delete g.block_records_bytes;
        else if (schema < 9) g.block_records_bytes = [];
      },
      cellRel('groups', cellOf(rel), schema),
    );
  await rewrite('index.json', (i) => {
    i.group_sha256 = renew(i.group_sha256 as Record<string, string>, 'groups');
    delete i.block_bytes;
    delete i.shared_bytes;
  });
  const metaPath = join(root, 'meta.json');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as {
    sha256?: Record<string, string>;
    cell_index?: unknown;
  };
  if (meta.sha256 !== undefined) meta.sha256[paths.cellIndex()] = sha.get(paths.cellIndex()) as string;
  // Those releases' meta.json carried no cell index.
  delete meta.cell_index;
  const metaBytes = serialise(meta);
  await writeFile(metaPath, metaBytes);
  const pointerPath = join(dir, keys.pointer);
  const pointer = JSON.parse(await readFile(pointerPath, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  if (pointer.version === version && pointer.meta_sha256 !== undefined)
    await writeFile(pointerPath, serialise({ ...pointer, meta_sha256: sha256Hex(metaBytes) }));
  await rewriteManifest(dir, version);
}

/** A current block with its units and coordinates as the unit, lat and lng columns that cell schemas 2 to 5 kept. */
function withDegrees(block: Record<string, unknown>): Record<string, unknown> {
  const { schema_version, cell, listing, dunit, coord_digits, dlat, dlng, exact, shared, records_sha256 } = block;
  const n = (listing as number[]).length;
  const c = decodeCoords({ coord_digits, dlat, dlng, exact } as StoredCoords, n) as Coords;
  const unit = [...(decodeSteps(dunit as number[]) as Int32Array)];
  return { schema_version, cell, listing, unit, lat: [...c.lat], lng: [...c.lng], shared, records_sha256 };
}

/**
 * Rewrite version `version` of the folder site `dir` as meta schema 2 wrote it: every hash in meta.json itself, no
 * hashes/ documents.
 */
export async function downgradeToMeta2(dir: string, version: string): Promise<void> {
  const root = join(dir, keys.root(version));
  const metaPath = join(root, 'meta.json');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as { sha256: Record<string, string> };
  const all: Record<string, string> = {};
  for (const [rel, sha] of Object.entries(meta.sha256)) if (!rel.startsWith('hashes/')) all[rel] = sha;
  for (const rel of await filesUnder(join(root, 'hashes'))) {
    const doc = JSON.parse(await readFile(join(root, 'hashes', rel), 'utf8')) as { sha256: Record<string, string> };
    Object.assign(all, doc.sha256);
  }
  await rm(join(root, 'hashes'), { recursive: true, force: true });
  const sha256 = Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1)));
  await writeFile(metaPath, serialise({ ...meta, schema_version: 2, sha256 }));
  await rewriteManifest(dir, version);
}

/** Rewrite version `version` of the folder site `dir` with a meta.json of meta schema 1 (before the cell tree, which goes). */
export async function downgradeToMeta1(dir: string, version: string): Promise<void> {
  const root = join(dir, keys.root(version));
  await rm(join(root, 'cells'), { recursive: true, force: true });
  const meta = JSON.parse(await readFile(join(root, 'meta.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(root, 'meta.json'), serialise({ ...meta, schema_version: 1 }));
  await rewriteManifest(dir, version);
}

/** The manifest of version `version` as what is now there. */
async function rewriteManifest(dir: string, version: string): Promise<void> {
  const root = join(dir, keys.root(version));
  const manifest = JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  const objects: Record<string, { sha256: string; bytes: number }> = {};
  for (const rel of await filesUnder(root)) {
    if (rel === 'manifest.json') continue;
    const bytes = await readFile(join(root, rel));
    objects[keys.root(version) + rel] = { sha256: sha256Hex(bytes), bytes: bytes.length };
  }
  await writeFile(join(root, 'manifest.json'), serialise({ ...manifest, objects }));
}

/** Every file of the folder site `dir` (pointer and versions), by store key. */
export async function siteFiles(dir: string): Promise<string[]> {
  return filesUnder(dir);
}
