/** A rollback to a version of another meta or cell schema than this release serves is refused: the shim would answer it 503. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rollbackTarget } from '../generator/release/rollback-target.ts';
import { ActiveRemovals } from '../generator/model/removals.ts';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { keys } from '../shim/format/site-format.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

describe('rollback to a version of a previous schema', () => {
  it('is refused, naming its schema, and offers no such version', async () => {
    const dir = await tempDir('rollback-schema');
    const old = '2026-W40-0123456789';
    await mkdir(join(dir, keys.root(old)), { recursive: true });
    await writeFile(join(dir, keys.manifest(old)), '{}\n');
    await writeFile(join(dir, keys.meta(old)), `${JSON.stringify({ schema_version: 2, version: old })}\n`);
    const released = [
      { version: old, week: '2026-W40', finished_at: '2026-10-01T00:00:00Z', corrections_sha256: 'c', rollback: false },
    ];
    const got = await rollbackTarget(
      {
        siteDir: dir,
        target: `folder ${dir}`,
        released,
        removals: new ActiveRemovals([]),
        corrections: 'c',
        live: null,
        flags: '',
      },
      old,
    );
    expect(got.kind).toBe('refused');
    expect(got.kind === 'refused' ? got.message : '').toContain(
      `${old} is meta schema 2, which this release does not serve (it reads meta schema 3 only)`,
    );
    expect(got.kind === 'refused' ? got.message : '').toContain('no released version passes these checks');
  });

  it('of the current meta schema over the previous cell schema is refused too, naming the cell schema', async () => {
    const dir = await tempDir('rollback-cells-schema');
    const old = '2026-W41-0123456789';
    await mkdir(join(dir, keys.root(old), 'cells'), { recursive: true });
    await writeFile(join(dir, keys.manifest(old)), '{}\n');
    const meta = SCHEMA_VERSIONS.meta;
    await writeFile(join(dir, keys.meta(old)), `${JSON.stringify({ schema_version: meta, version: old })}\n`);
    await writeFile(
      join(dir, keys.cellIndex(old)),
      `${JSON.stringify({ schema_version: SCHEMA_VERSIONS.cells - 1 })}\n`,
    );
    const released = [
      { version: old, week: '2026-W41', finished_at: '2026-10-08T00:00:00Z', corrections_sha256: 'c', rollback: false },
    ];
    const got = await rollbackTarget(
      {
        siteDir: dir,
        target: `folder ${dir}`,
        released,
        removals: new ActiveRemovals([]),
        corrections: 'c',
        live: null,
        flags: '',
      },
      old,
    );
    expect(got.kind === 'refused' ? got.message : '').toContain(
      `${old} is cells schema ${SCHEMA_VERSIONS.cells - 1}, which this release does not serve (it reads cells schema ${SCHEMA_VERSIONS.cells} only)`,
    );
  });
});
