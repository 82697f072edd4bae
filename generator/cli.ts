/** `npm run generate -- [--week 2026-W47] [--out site/] [--data data/] [--skip-bad] [--quiet]`: publish one week into a site folder. */
import { parseArgs } from 'node:util';
import { BadInputError, formatBadRow, generate } from './generate.ts';
import { InputError } from './inputs/read.ts';

const HELP = `Usage: npm run generate -- [options]

Reads one week of inputs (<data>/metros.json, <data>/weeks/<week>/{dataset.json,places.jsonl,samples.jsonl,flags.jsonl},
optional <data>/corrections.jsonl) and publishes a complete site: <out>/current.json and <out>/v/<version>/...
The same input gives byte-identical output. Nothing is written if any input row is bad, unless --skip-bad.
The old <out> folder is replaced only when the new one is complete.

Options:
  --week <YYYY-Www>  week to publish (default: the latest folder in <data>/weeks/)
  --data <dir>       input folder (default: data/)
  --out <dir>        site folder to replace (default: site/)
  --skip-bad         leave out bad rows, listing each on stderr, instead of failing
  --quiet            no progress output
  -h, --help         this text

Exit status: 0 published, 1 bad input or failure (nothing written), 2 usage error.`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        week: { type: 'string' },
        data: { type: 'string', default: 'data/' },
        out: { type: 'string', default: 'site/' },
        'skip-bad': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  try {
    const r = await generate({
      dataDir: args.data,
      outDir: args.out,
      ...(args.week !== undefined ? { week: args.week } : {}),
      skipBad: args['skip-bad'],
      quiet: args.quiet,
    });
    process.stdout.write(`${JSON.stringify({ version: r.version, week: r.week, objects: r.objects, bytes: r.bytes, skipped: r.skipped.length })}\n`);
    return 0;
  } catch (err) {
    if (err instanceof BadInputError) {
      for (const row of err.rows) process.stderr.write(`${formatBadRow(row)}\n`);
      process.stderr.write(`generate: ${err.message}\n`);
    } else if (err instanceof InputError) {
      process.stderr.write(`generate: ${err.message}; nothing was written\n`);
    } else {
      process.stderr.write(`generate: failed, the previous site is left as it was: ${(err as Error).stack ?? String(err)}\n`);
    }
    return 1;
  }
}

process.exitCode = await main();
