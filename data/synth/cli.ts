/** `npm run synth`: writes the seeded synthetic sample inputs (see data/README.md). */
import { resolve } from 'node:path';
import { cliOrExit, EXIT } from '../../shim/lib/cli-run.ts';
import { synthesize, SYNTH_DEFAULTS } from './synthesize.ts';

const SPEC = {
  name: 'synth',
  usage: 'npm run synth -- [options]',
  description: `Writes synthetic weekly inputs (dataset.json, places.jsonl, samples.jsonl, flags.jsonl) into <out>/<week>/.
The same seed always gives byte-identical files. Everything is marked synthetic: .example web sites, 555-01xx phones.`,
  options: {
    out: { type: 'string', arg: 'dir', description: 'output folder', default: 'data/weeks' },
    seed: { type: 'integer', min: 0, description: 'PRNG seed', default: SYNTH_DEFAULTS.seed },
    weeks: {
      type: 'week',
      split: ',',
      arg: 'list',
      description: `comma-separated consecutive ISO weeks (default ${SYNTH_DEFAULTS.weeks.join(',')}; ${SYNTH_DEFAULTS.weeks[0]} with --nationwide)`,
    },
    offices: { type: 'integer', min: 1, description: `offices in the first week (default ${SYNTH_DEFAULTS.offices})` },
    nationwide: {
      type: 'boolean',
      description: 'spread offices over every US ZIP, weighted toward dense areas (samples stay in the 27 metros)',
    },
    quiet: { type: 'boolean', description: 'no progress on stderr' },
  },
  epilogue:
    'Benchmark scale (one week, about 770 MB): npm run synth -- --out var/bench-data/weeks --offices 1000000 --nationwide',
  exits: { [EXIT.ok]: 'written', [EXIT.failure]: 'failure' },
} as const;

const { values } = cliOrExit(SPEC);
try {
  await synthesize({
    outDir: resolve(values.out),
    seed: values.seed,
    ...(values.weeks.length > 0 ? { weeks: values.weeks } : {}),
    offices: values.offices,
    nationwide: values.nationwide,
    quiet: values.quiet,
  });
} catch (err) {
  process.stderr.write(`synth: ${(err as Error).message}\n`);
  process.exit(EXIT.failure);
}
