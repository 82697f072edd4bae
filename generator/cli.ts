/** `npm run generate -- [--week 2026-W47] [--out site/] [--data data/] [--skip-bad] [--quiet]`: publish one week into a site folder. */
import { BadInputError, formatBadRow, generate } from './generate.ts';
import { describeFailure } from './failure.ts';
import { InputError } from './inputs/read.ts';
import { DEFAULT_GRACE_MS, DEFAULT_KEEP_VERSIONS } from './write/site-folder.ts';
import { parseCli } from './cli-args.ts';
import { limitHeapGrowth } from './write/heap.ts';

const HELP = `Usage: npm run generate -- [options]

Reads one week of inputs (<data>/metros.json, <data>/weeks/<week>/{dataset.json,places.jsonl,samples.jsonl,flags.jsonl},
optional <data>/corrections.jsonl) and publishes a complete site: <out>/current.json and <out>/v/<version>/...
The same input gives byte-identical output. Nothing is written if any input row is bad, unless --skip-bad.
The site folder behaves like the bucket: the new version is written under <out>/.staging/ and renamed to
<out>/v/<version>/ whole, then current.json is replaced by renaming a finished file over it, so a reader (or a kill
at any point) sees the old site or the new one. Replaced versions stay for the grace period (longer than any
server's 5 s pointer cache) and the last --keep versions stay for rollback; a later run removes what a killed run left.

Options:
  --week <YYYY-Www>  week to publish (default: the latest folder in <data>/weeks/)
  --data <dir>       input folder (default: data/)
  --out <dir>        site folder to replace (default: site/)
  --skip-bad         leave out bad rows, listing each on stderr, instead of failing
  --grace-seconds <s> keep a replaced version at least this long (default ${DEFAULT_GRACE_MS / 1000})
  --keep <n>         versions kept whatever their age, the current one included (default ${DEFAULT_KEEP_VERSIONS})
  --quiet            no progress output
  -h, --help         this text

Exit status: 0 published, 1 bad input or failure (nothing written), 2 usage error.`;

async function main(): Promise<number> {
  const cli = parseCli(
    {
      options: {
        week: { type: 'string' },
        data: { type: 'string', default: 'data/' },
        out: { type: 'string', default: 'site/' },
        'skip-bad': { type: 'boolean', default: false },
        'grace-seconds': { type: 'string', default: String(DEFAULT_GRACE_MS / 1000) },
        keep: { type: 'string', default: String(DEFAULT_KEEP_VERSIONS) },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    },
    HELP,
  );
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  const grace = Number(args['grace-seconds']);
  const keep = Number(args.keep);
  if (!Number.isFinite(grace) || grace < 0 || !Number.isInteger(keep) || keep < 1) {
    process.stderr.write(`--grace-seconds must be a number >= 0 and --keep an integer >= 1\n\n${HELP}\n`);
    return 2;
  }
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
    process.stdout.write(`${JSON.stringify({ version: r.version, week: r.week, objects: r.objects, bytes: r.bytes, skipped: r.skipped.length, previous: r.previousVersion, pruned: r.pruned })}\n`);
    return 0;
  } catch (err) {
    if (err instanceof BadInputError) {
      for (const row of err.rows) process.stderr.write(`${formatBadRow(row)}\n`);
      process.stderr.write(`generate: ${err.message}\n`);
    } else if (err instanceof InputError) {
      process.stderr.write(`generate: ${err.message}; nothing was written\n`);
    } else {
      process.stderr.write(`generate: failed, the site still serves what it served before: ${describeFailure(err)}\n`);
    }
    return 1;
  }
}

process.exitCode = await main();
