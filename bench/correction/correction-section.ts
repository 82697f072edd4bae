/** Section 7 of the benchmark: the correction publish on the sample and on the scale site (bench/correction/correction.ts). */
import { makeGeneratedLive } from '../lib/generated-live.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { keys } from '../../shim/format/site-format.ts';
import { measureCorrection, type CorrectionResults } from './correction.ts';
import { ensureScaleInputs, label, measureProcess } from '../scale/scale.ts';

/** Measure the sample (week published for real) and, unless null, the scale site (week seeded: see measureCorrection). */
export async function runCorrectionSection(opts: {
  outRoot: string;
  dataDir: string;
  sampleDir: string;
  offices: number;
  scaleOffices: number | null;
  onLine: (line: string) => void;
}): Promise<CorrectionResults> {
  const out: CorrectionResults = { runs: [], errors: [] };
  const say = opts.onLine;
  try {
    out.runs.push(
      await measureCorrection({
        offices: opts.offices,
        dataDir: opts.dataDir,
        baseSite: opts.sampleDir,
        workDir: join(opts.outRoot, 'correction-sample'),
        publishBase: true,
        onLine: say,
      }),
    );
  } catch (err) {
    out.errors.push(`sample: ${(err as Error).message}`);
    say(`  correction on the sample failed: ${(err as Error).message}`);
  }
  if (opts.scaleOffices === null) return out;
  const n = opts.scaleOffices;
  try {
    const inputs = await ensureScaleInputs(opts.outRoot, n, (l) => say(`  [synth ${label(n)}] ${l}`));
    const baseSite = join(opts.outRoot, `site-${label(n)}`);
    if (!existsSync(join(baseSite, keys.pointer))) {
      say(`  generating the ${n}-office week into ${baseSite}`);
      const g = await measureProcess(
        'generator/cli.ts',
        ['--data', inputs.dataDir, '--out', baseSite],
        (l) => say(`  [generate ${label(n)}] ${l}`),
        ['--max-old-space-size=6000'],
      );
      if (!g.ok) throw new Error(`generating the week failed: ${g.error ?? ''}`);
      await makeGeneratedLive(baseSite, g.stdout);
    }
    out.runs.push(
      await measureCorrection({
        offices: n,
        dataDir: inputs.dataDir,
        baseSite,
        workDir: join(opts.outRoot, `correction-${label(n)}`),
        publishBase: false,
        onLine: say,
      }),
    );
  } catch (err) {
    out.errors.push(`${n} offices: ${(err as Error).message}`);
    say(`  correction at ${n} offices failed: ${(err as Error).message}`);
  }
  return out;
}
