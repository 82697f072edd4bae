/** `npm run release -- [--week W] [--bucket B ...] [--force <gate>=<reason> ...]`: one week from inputs to live, gated and verified. */
import { GATE_NAMES, MAX_DROP, MAX_METRO_DROP, MAX_MILES_FROM_ZIP, type GateName } from './gates.ts';
import { DEFAULT_GRACE_MS, DEFAULT_KEEP_VERSIONS } from '../write/site-folder.ts';
import { release } from './release.ts';
import { limitHeapGrowth } from '../write/heap.ts';
import { EXIT, printUsageError, runCli } from '../../shim/lib/cli-run.ts';
import { BUCKET_OPTIONS } from '../site/bucket-options.ts';

const SPEC = {
  name: 'release',
  usage: 'npm run release -- [options]',
  description: `One command for the week: inputs -> generate -> gates -> verify -> publish -> invalidate -> release record.
  1. generate the week into the site folder as a new version, NOT yet current;
  2. gates (${GATE_NAMES.join(', ')}):
     missing or empty places or samples; a week older than the live version's (week-order: going back is a rollback);
     offices, firms or samples down more than ${MAX_DROP * 100}% against the live version; an office outside the US or more than
     ${MAX_MILES_FROM_ZIP} miles from its ZIP's centroid; a metro with no offices or no samples; a metro whose samples, grid points or
     offices fall by more than ${MAX_METRO_DROP * 100}% against the live version (metro-drop); a correction naming a place no week
     ever had; an office without a claimed status.
     A correction naming a place an earlier week had (it closed since) is reported and skipped, and listed in the record.
     A failed gate refuses the week (nothing is written) unless it is let through by name with --force <gate>=<reason>
     (repeat for each gate; the other gates still refuse); each forced gate and its reason are kept in the record;
  3. verify: the new version's manifest, and a seeded sample of answers recomputed by brute force and compared;
  4. publish: to the bucket when --bucket is given (objects, then the pointer last), then the site folder's current.json.
     Only release moves a pointer (generate and publish never do), by compare-and-swap against the version live when
     the release began (S3 If-Match on the pointer's ETag; an exclusive lock on a folder), with the standing removals
     read again just before: a release whose base moved (another release finished first) is refused; run it again;
  5. invalidate: with --invalidate and --distribution the CloudFront paths are invalidated, otherwise printed;
  6. a release record (JSON) in --records: what was published, counts, every gate (passed, or forced and why).
A refused or failed release leaves the live version untouched. Progress on stderr; the summary on stdout.

Rollback: npm run release -- --rollback <version> [--bucket B ...] (folder and bucket alike; never write current.json
by hand). It goes only to a version the release records (--records) say was released to this target, still in the
site folder, released with today's <data>/corrections.jsonl and holding no listing under a standing removal
(<data>/removals.jsonl); that version is verified and made current again (the bucket's pointer first, then the
folder's). Anything else is refused, naming the versions it may go back to; release a week again with --week instead.
After a rollback, a release without --week is refused: it names the week it would release and asks for --week.
Loopback S3 (e.g. s3rver): --endpoint http://127.0.0.1:4568 with AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER.`,
  options: {
    data: { type: 'string', arg: 'dir', description: 'inputs', default: 'data/' },
    site: { type: 'string', arg: 'dir', description: 'local site folder', default: 'site/' },
    week: {
      type: 'week',
      description: 'week, e.g. 2026-W47 (2026-w47 is read as 2026-W47; default: the latest under <data>/weeks/)',
    },
    ...BUCKET_OPTIONS,
    bucket: {
      ...BUCKET_OPTIONS.bucket,
      description: 'also publish to this S3 bucket (its live version is the one gates compare against)',
    },
    distribution: {
      type: 'string',
      arg: 'id',
      description: 'CloudFront distribution whose changed paths to invalidate',
    },
    invalidate: {
      type: 'boolean',
      description: 'apply the invalidation (otherwise the paths are printed; needs --distribution)',
    },
    force: {
      type: 'string',
      multiple: true,
      arg: 'gate>=<reason',
      description:
        'let this one gate through when it fails, e.g. --force counts-drop="firm removed on request";\none gate each; the reason is recorded',
    },
    rollback: {
      type: 'string',
      arg: 'version',
      description: 'roll back to this version instead of releasing a week (above)',
    },
    'new-target': {
      type: 'boolean',
      description:
        'release to a bucket target with nothing live, or to the site folder alone, although this site folder was\nreleased with another bucket target (without it such a release is refused as a likely typo)',
    },
    'skip-bad': {
      type: 'boolean',
      description: 'leave out bad input rows (each listed in the record) instead of refusing the week',
    },
    'new-version': {
      type: 'boolean',
      description:
        "release the week as a new version over the live one although the same inputs give the live version's id:\nafter a code upgrade, to publish this generator's output of the live week (the live version never changes)",
    },
    'verify-sample': { type: 'integer', min: 0, description: 'answers recomputed by the verify step', default: 40 },
    'grace-seconds': {
      type: 'number',
      min: 0,
      arg: 's',
      description: 'keep a version that stopped being live at least this long',
      default: DEFAULT_GRACE_MS / 1000,
    },
    keep: {
      type: 'integer',
      min: 1,
      description: 'versions of the site folder kept whatever their age, the live one included',
      default: DEFAULT_KEEP_VERSIONS,
    },
    records: { type: 'string', arg: 'dir', description: 'folder of release records', default: 'var/releases' },
  },
  exits: {
    [EXIT.ok]: 'released',
    [EXIT.failure]:
      'refused (a gate, verify, a rollback target, a missing --week after a rollback, a target that looks mistyped, or a base that moved), or failed (the failing step is named)',
  },
} as const;

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const sample = args['verify-sample'];
  if (args.invalidate && args.distribution === undefined)
    return printUsageError(SPEC, '--invalidate needs --distribution');
  if (args.rollback !== undefined && args['new-version'])
    return printUsageError(
      SPEC,
      '--new-version releases a week; --rollback makes an existing version live: give one of them',
    );
  if (args.rollback !== undefined && args.week !== undefined) {
    return printUsageError(SPEC, '--rollback names a version and --week a week to release: give one of them');
  }
  const force = parseForce(args.force);
  if (typeof force === 'string') return printUsageError(SPEC, force);
  limitHeapGrowth();
  const rec = await release({
    dataDir: args.data,
    siteDir: args.site,
    verifySample: sample,
    recordsDir: args.records,
    invalidate: args.invalidate,
    retention: { graceMs: args['grace-seconds'] * 1000, keep: args.keep },
    ...(args.week !== undefined ? { week: args.week } : {}),
    ...(Object.keys(force).length > 0 ? { force } : {}),
    ...(args['skip-bad'] ? { skipBad: true } : {}),
    ...(args['new-version'] ? { newVersion: true } : {}),
    ...(args['new-target'] ? { newTarget: true } : {}),
    ...(args.rollback !== undefined ? { rollback: args.rollback } : {}),
    ...(args.bucket !== undefined
      ? {
          bucket: {
            bucket: args.bucket,
            forcePathStyle: args.endpoint !== undefined,
            ...(args.prefix !== undefined ? { prefix: args.prefix } : {}),
            ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
            ...(args.region !== undefined ? { region: args.region } : {}),
            ...(args.distribution !== undefined ? { distributionId: args.distribution } : {}),
          },
        }
      : {}),
  });
  const summary = {
    outcome: rec.outcome,
    rollback: rec.rollback,
    failed_step: rec.failed_step,
    version: rec.version,
    previous_version: rec.previous_version,
    counts: rec.counts,
    gates_failed: rec.gates.filter((g) => !g.passed).map((g) => g.gate),
    forced: rec.forced,
    invalidation_paths: rec.invalidation.paths.length,
    record: rec.recordPath,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  if (rec.outcome !== 'released')
    process.stderr.write(`release: ${rec.outcome} at ${rec.failed_step ?? '?'}: ${rec.error ?? ''}\n`);
  return rec.outcome === 'released' ? EXIT.ok : EXIT.failure;
}

/** `--force <gate>=<reason>` values as gate -> reason, or the usage error. */
function parseForce(values: readonly string[]): Partial<Record<GateName, string>> | string {
  const out: Partial<Record<GateName, string>> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    const gate = eq < 0 ? '' : v.slice(0, eq).trim();
    const reason = eq < 0 ? '' : v.slice(eq + 1).trim();
    if (!(GATE_NAMES as readonly string[]).includes(gate) || reason === '') {
      return `--force takes <gate>=<reason>, one gate at a time, with a gate among ${GATE_NAMES.join(', ')}; got ${JSON.stringify(v)}`;
    }
    out[gate as GateName] = reason;
  }
  return out;
}

process.exitCode = await main();
