/** A rollback to a version of another meta or cell schema than this release serves is refused: the shim would answer it 503. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rollbackTarget, type RollbackTarget } from '../generator/release/rollback-target.ts';
import { ActiveRemovals } from '../generator/model/removals.ts';
import { PREVIOUS_CELL_SCHEMA, SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { keys } from '../shim/format/site-format.ts';
import { removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';

afterAll(removeTempDirs);

const OLD = '2026-W40-0123456789';
const CURRENT = { meta: SCHEMA_VERSIONS.meta, cells: SCHEMA_VERSIONS.cells };

/** The rollback plan for a released version whose meta.json and cells/index.json have these schema versions. */
async function rollbackTo(
  schemas: { meta: number; cells: number },
  live: string | null = null,
): Promise<RollbackTarget> {
  const dir = await tempDir('rollback-schema');
  await mkdir(join(dir, keys.root(OLD), 'cells'), { recursive: true });
  await writeFile(join(dir, keys.manifest(OLD)), '{}\n');
  await writeFile(join(dir, keys.meta(OLD)), `${JSON.stringify({ schema_version: schemas.meta, version: OLD })}\n`);
  await writeFile(join(dir, keys.cellIndex(OLD)), `${JSON.stringify({ schema_version: schemas.cells })}\n`);
  const released = [
    { version: OLD, week: '2026-W40', finished_at: '2026-10-01T00:00:00Z', corrections_sha256: 'c', rollback: false },
  ];
  const removals = new ActiveRemovals([]);
  const context = {
    siteDir: dir,
    target: `folder ${dir}`,
    released,
    removals,
    corrections: 'c',
    live,
    flags: '',
  };
  return rollbackTarget(context, OLD);
}

const message = (got: RollbackTarget): string => (got.kind === 'refused' ? got.message : '');

describe('rollback to a version of a previous schema', () => {
  it('of the previous meta schema is refused, naming its schema, and offers no such version', async () => {
    const got = await rollbackTo({ ...CURRENT, meta: CURRENT.meta - 1 });
    expect(got.kind).toBe('refused');
    expect(message(got)).toContain(
      `${OLD} is meta schema ${CURRENT.meta - 1}, which this release does not serve (it reads meta schema ${CURRENT.meta} only)`,
    );
    expect(message(got)).toContain('no released version passes these checks');
  });

  it('of the current meta schema over the cell schema before the previous one is refused too, naming the cell schema', async () => {
    // Cell schema 9 is current and 8 read beside it: 7 (JSON group trees and shared pages) is retired.
    expect([CURRENT.cells, PREVIOUS_CELL_SCHEMA]).toEqual([9, 8]);
    const got = await rollbackTo({ ...CURRENT, cells: PREVIOUS_CELL_SCHEMA - 1 });
    expect(message(got)).toContain(
      `${OLD} is cells schema ${PREVIOUS_CELL_SCHEMA - 1}, which this release does not serve (it reads cells schema ${CURRENT.cells} or ${PREVIOUS_CELL_SCHEMA} only)`,
    );
  });

  it('of the previous cell schema goes ahead: the shim reads its record chunks as objects', async () => {
    expect(await rollbackTo({ ...CURRENT, cells: PREVIOUS_CELL_SCHEMA })).toEqual({
      kind: 'pointer',
      version: OLD,
      week: '2026-W40',
    });
  });

  it('of the current schemas goes ahead', async () => {
    expect(await rollbackTo(CURRENT)).toEqual({ kind: 'pointer', version: OLD, week: '2026-W40' });
  });

  it('a refused rollback to an older week than the live one suggests the release of that week with --force week-order', async () => {
    const older = message(await rollbackTo({ ...CURRENT, meta: CURRENT.meta - 1 }, '2026-W47-abcdef0123'));
    expect(older).toContain('npm run release -- --week 2026-W40 --force week-order="<reason>"');
    const noLive = message(await rollbackTo({ ...CURRENT, meta: CURRENT.meta - 1 }));
    expect(noLive).toContain('npm run release -- --week 2026-W40');
    expect(noLive).not.toContain('week-order');
  });
});
