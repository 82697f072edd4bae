/**
 * A release killed part way leaves a record saying how far it got: written ("publishing") before any pointer moves and
 * rewritten as each pointer moves, so the version a killed run made live has a record, can be rolled back from and gone
 * back to; one killed before its pointer moved is never offered as a rollback target. The kill is real: the release
 * runs in a child process that SIGKILLs itself on a log line.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { release, type ReleaseOptions, type ReleaseRecord } from '../generator/release/release.ts';
import { releasedOn, targetName } from '../generator/release/records.ts';
import { keys, Pointer } from '../shim/format/site-format.ts';
import { S3Store } from '../shim/store/s3.ts';
import { copyFixture, removeTempDirs, tempDir } from './fixtures/generator/helpers.ts';
import { liveOf, setPhone } from './helpers/release-data.ts';
import { useS3rver } from './helpers/s3rver.ts';

afterAll(removeTempDirs);

const silent = { log: () => {} };
const RELEASE = pathToFileURL(resolve('generator/release/release.ts')).href;

/** Every record in `dir` with its file name. */
async function recordsIn(dir: string): Promise<(ReleaseRecord & { file: string })[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (file) => ({ ...(JSON.parse(await readFile(join(dir, file), 'utf8')) as ReleaseRecord), file })),
  );
}

/** A folder deployment with one week released (v1) and p1's phone changed since (the next release makes v2). */
async function deployment(tag: string, extra: Partial<ReleaseOptions> = {}) {
  const data = await copyFixture();
  const site = join(await tempDir(tag), 'site');
  const records = await tempDir(`${tag}-records`);
  const run = (more: Partial<ReleaseOptions> = {}) =>
    release({ dataDir: data, siteDir: site, recordsDir: records, verifySample: 5, ...silent, ...extra, ...more });
  const first = await run();
  expect(first.outcome, first.error ?? '').toBe('released');
  await setPhone(data, '(312) 555-0199');
  /** Run the release in a child process that SIGKILLs itself on the first log line containing `needle`. */
  const killedAt = async (needle: string): Promise<void> => {
    const script = join(await tempDir(`${tag}-script`), 'kill.mjs');
    await writeFile(
      script,
      `import { release } from ${JSON.stringify(RELEASE)};
const opts = JSON.parse(process.argv[2]);
await release({ ...opts, log: (line) => {
  process.stderr.write(line + '\\n');
  if (line.includes(${JSON.stringify(needle)})) process.kill(process.pid, 'SIGKILL');
} });
process.exit(7);
`,
    );
    const opts = { dataDir: data, siteDir: site, recordsDir: records, verifySample: 5, ...extra };
    // Not spawnSync: the loopback bucket answers from this process.
    const child = spawn(process.execPath, [script, JSON.stringify(opts)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((done) => child.on('close', (_code, sig) => done(sig)));
    expect(signal, stderr).toBe('SIGKILL');
  };
  return { data, site, records, run, first, killedAt };
}

// Each deployment and its killed run are made in a hook: three or four releases do not fit one test's time on 2 cores.
type Deployment = Awaited<ReturnType<typeof deployment>>;

describe('a release killed after its pointer moved (site folder)', () => {
  let d: Deployment;
  let v2: string;
  beforeAll(async () => {
    d = await deployment('killed-after');
    await d.killedAt('current.json -> ');
    v2 = await liveOf(d.site);
  });

  it('leaves a "publishing" record naming the moved pointer and what was live before', async () => {
    expect(v2).not.toBe(d.first.version);
    const rec = (await recordsIn(d.records)).find((r) => r.version === v2);
    expect(rec?.outcome).toBe('publishing');
    expect(rec?.file).toMatch(/-publishing\.json$/);
    expect(rec?.previous_version).toBe(d.first.version);
    expect(rec?.pointers_moved).toEqual([targetName({ folder: d.site })]);
    expect(rec?.finished_at).toBe('');
  });

  it('its version can be rolled back from, is offered as a rollback target, and can be gone back to', async () => {
    const back = await d.run({ rollback: d.first.version as string });
    expect(back.outcome, back.error ?? '').toBe('released');
    expect(back.previous_version).toBe(v2);
    const refused = await d.run({ rollback: '2026-W47-0000000000' });
    expect(refused.error).toContain(`it may go back to ${v2}`);
    const again = await d.run({ rollback: v2 });
    expect(again.outcome, again.error ?? '').toBe('released');
    expect(await liveOf(d.site)).toBe(v2);
  });
});

describe('a release killed just before its pointer moved', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deployment('killed-before');
    await d.killedAt('publishing (rewritten');
  });

  it('leaves a "publishing" record with no pointer moved; its version is never a rollback target', async () => {
    expect(await liveOf(d.site)).toBe(d.first.version);
    const recs = await recordsIn(d.records);
    const rec = recs.find((r) => r.outcome === 'publishing');
    expect(rec?.pointers_moved).toEqual([]);
    const v2 = rec?.version as string;
    expect(v2).not.toBe(d.first.version);
    const refused = await d.run({ rollback: v2 });
    expect(refused.outcome).toBe('refused');
    expect(refused.error).toContain(`${v2} was never released to`);
    expect(await liveOf(d.site)).toBe(d.first.version);
  });
});

describe('a release to a loopback bucket killed after the bucket pointer moved', () => {
  const s3 = useS3rver();
  let bucket: NonNullable<ReleaseOptions['bucket']>;
  let d: Deployment;
  let live: string;
  beforeAll(async () => {
    bucket = { bucket: 'site', ...s3.clientOptions };
    d = await deployment('killed-bucket', { bucket });
    await d.killedAt('pointer current.json -> ');
    const store = new S3Store({ ...bucket });
    live = Pointer.parse(JSON.parse(Buffer.from((await store.get(keys.pointer)) as Uint8Array).toString())).version;
  });

  it('the record names the bucket as moved and the folder as not', async () => {
    expect(live).not.toBe(d.first.version);
    expect(await liveOf(d.site)).toBe(d.first.version);
    const rec = (await recordsIn(d.records)).find((r) => r.version === live);
    expect(rec?.outcome).toBe('publishing');
    expect(rec?.pointers_moved).toEqual([targetName({ bucket: 'site', prefix: '' })]);
  });

  it('the same release run again finishes it: the folder follows the bucket', async () => {
    const rerun = await d.run();
    expect(rerun.outcome, rerun.error ?? '').toBe('released');
    expect(rerun.version).toBe(live);
    expect(await liveOf(d.site)).toBe(live);
  });
});

describe('which stopped runs count as released to a target (the rule rollback reads)', () => {
  it('a "publishing" record counts when it lists the target as moved, names the live version, or a later run began from it', async () => {
    const dir = await tempDir('records-rule');
    const T = 's3://site/';
    const put = (version: string, day: string, r: Record<string, unknown> = {}): Promise<void> =>
      writeFile(
        join(dir, `${day}-${version}.json`),
        JSON.stringify({
          outcome: 'publishing',
          version,
          week: '2026-W47',
          started_at: `2026-11-${day}T00:00:00Z`,
          finished_at: '',
          targets: [T, 'folder /srv/site'],
          rollback: null,
          inputs: null,
          previous_version: null,
          pointers_moved: [],
          ...r,
        }),
      );
    await put('A', '01'); // killed before its pointer moved: never live
    await put('B', '02', { pointers_moved: [T] }); // killed after the bucket pointer moved
    await put('C', '03'); // killed between the pointer write and the record's rewrite; the next run began from it
    await put('N', '04', {
      outcome: 'refused',
      version: null,
      previous_version: 'C',
      finished_at: '2026-11-04T00:01:00Z',
    });
    await put('E', '05', { outcome: 'failed' }); // failed before any pointer moved
    await put('D', '06'); // as C, and still live
    expect((await releasedOn(dir, T, 'D')).map((r) => r.version)).toEqual(['B', 'C', 'D']);
    expect((await releasedOn(dir, T, null)).map((r) => r.version)).toEqual(['B', 'C']);
    // The folder's pointer is another target: the bucket's moving says nothing about it.
    expect((await releasedOn(dir, 'folder /srv/site', null)).map((r) => r.version)).toEqual([]);
  });
});
