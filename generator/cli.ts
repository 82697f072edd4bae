/** `npm run generate -- [--week 2026-W47] [--out site/] [--data data/] [--skip-bad] [--quiet]`: write one week as a new version, not live. */
import { BadInputError, formatBadRow, generate } from './generate.ts';
import { describeFailure } from './failure.ts';
import { InputError } from './inputs/read.ts';
import { DEFAULT_GRACE_MS, DEFAULT_KEEP_VERSIONS } from './write/site-folder.ts';
import { limitHeapGrowth } from './write/heap.ts';
import { EXIT, runCli } from '../shim/lib/cli-run.ts';

const SPEC = {
  name: 'generate',
  usage: 'npm run generate -- [options]',
  description: `Reads one week of inputs (<data>/metros.json, <data>/weeks/<week>/{dataset.json,places.jsonl,samples.jsonl,flags.jsonl},
optional <data>/corrections.jsonl) and writes it as a new version <out>/v/<version>/..., NOT live: generate never
writes current.json. Only npm run release moves the pointer, after the gates, the standing removals and the verify
step; this command is a step of it, for development and for reading its output.
The same input gives byte-identical output. Nothing is written if any input row is bad, unless --skip-bad.
The version is written under <out>/.staging/ and renamed to <out>/v/<version>/ whole, so a reader (or a kill at any
point) never sees half of it. Versions no longer live stay for the grace period (longer than any server's 5 s pointer
cache) and the last --keep versions stay for rollback; a later run removes what a killed run left.`,
  options: {
    week: {
      type: 'week',
      description:
        'week to publish, e.g. 2026-W47 (2026-w47 is read as 2026-W47; default: the latest folder in <data>/weeks/)',
    },
    data: { type: 'string', arg: 'dir', description: 'input folder', default: 'data/' },
    out: { type: 'string', arg: 'dir', description: 'site folder to replace', default: 'site/' },
    'skip-bad': { type: 'boolean', description: 'leave out bad rows, listing each on stderr, instead of failing' },
    'grace-seconds': {
      type: 'number',
      min: 0,
      arg: 's',
      description: 'keep a replaced version at least this long',
      default: DEFAULT_GRACE_MS / 1000,
    },
    keep: {
      type: 'integer',
      min: 1,
      description: 'versions kept whatever their age, the current one included',
      default: DEFAULT_KEEP_VERSIONS,
    },
    quiet: { type: 'boolean', description: 'no progress output' },
  },
  exits: {
    [EXIT.ok]: 'written (not live)',
    [EXIT.failure]: 'bad input or failure (nothing written)',
    [EXIT.usage]: 'usage error (e.g. --week not an ISO week)',
  },
} as const;

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const grace = args['grace-seconds'];
  const keep = args.keep;
  limitHeapGrowth();
  try {
    const r = await generate({
      retention: { graceMs: grace * 1000, keep },
      dataDir: args.data,
      outDir: args.out,
      ...(args.week !== undefined ? { week: args.week } : {}),
      skipBad: args['skip-bad'],
      quiet: args.quiet,
    });
    process.stdout.write(
      `${JSON.stringify({ version: r.version, week: r.week, objects: r.objects, bytes: r.bytes, skipped: r.skipped.length, previous: r.previousVersion, pruned: r.pruned })}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BadInputError) {
      for (const row of err.rows) process.stderr.write(`${formatBadRow(row)}\n`);
      process.stderr.write(`generate: ${err.message}\n`);
    } else if (err instanceof InputError) {
      process.stderr.write(`generate: ${err.message}; nothing was written\n`);
    } else {
      process.stderr.write(`generate: failed, nothing live changed: ${describeFailure(err)}\n`);
    }
    return 1;
  }
}

process.exitCode = await main();
