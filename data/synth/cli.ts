/** `npm run synth`: writes the seeded synthetic sample inputs (see data/README.md). */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { synthesize, SYNTH_DEFAULTS } from './synthesize.ts';

const HELP = `Usage: npm run synth -- [options]

Writes synthetic weekly inputs (dataset.json, places.jsonl, samples.jsonl, flags.jsonl) into <out>/<week>/.
The same seed always gives byte-identical files. Everything is marked synthetic: .example web sites, 555-01xx phones.

Options:
  --out DIR         output folder (default data/weeks)
  --seed N          PRNG seed, a non-negative integer (default ${SYNTH_DEFAULTS.seed})
  --weeks LIST      comma-separated consecutive ISO weeks (default ${SYNTH_DEFAULTS.weeks.join(',')}; ${SYNTH_DEFAULTS.weeks[0]} with --nationwide)
  --offices N       offices in the first week (default ${SYNTH_DEFAULTS.offices})
  --nationwide      spread offices over every US ZIP, weighted toward dense areas (samples stay in the 27 metros)
  --quiet           no progress on stderr
  --help            this text

Benchmark scale (one week, about 770 MB): npm run synth -- --out var/bench-data/weeks --offices 1000000 --nationwide`;

function fail(message: string): never {
  process.stderr.write(`synth: ${message}\n\n${HELP}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      out: { type: 'string' },
      seed: { type: 'string' },
      weeks: { type: 'string' },
      offices: { type: 'string' },
      nationwide: { type: 'boolean' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const weeks = values.weeks?.split(',').map((w) => w.trim()).filter((w) => w.length > 0);
if (weeks?.some((w) => !/^\d{4}-W\d{2}$/.test(w))) fail(`--weeks must list ISO weeks like 2026-W46, got "${values.weeks}"`);
const offices = integer('offices', values.offices);
if (offices === 0) fail('--offices must be at least 1');
try {
  await synthesize({
    outDir: resolve(values.out ?? 'data/weeks'),
    seed: integer('seed', values.seed),
    weeks,
    offices,
    nationwide: values.nationwide ?? false,
    quiet: values.quiet ?? false,
  });
} catch (err) {
  process.stderr.write(`synth: ${(err as Error).message}\n`);
  process.exit(1);
}
