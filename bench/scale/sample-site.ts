/**
 * The benchmark's sample site, generated into a clean folder: an old `bench/out/site-sample` may hold a live version of
 * a retired schema, which generate refuses to compare a new week with, so the folder is removed first (and says so).
 */
import { existsSync, rmSync } from 'node:fs';
import { makeGeneratedLive } from '../lib/generated-live.ts';
import { generatorNodeArgs, measureProcess, type ProcessCost } from './scale.ts';

/** Remove `siteDir`, generate `dataDir`'s latest week into it and make that live; the generate run's cost. */
export async function generateSampleSite(
  dataDir: string,
  siteDir: string,
  say: (line: string) => void,
): Promise<ProcessCost> {
  if (existsSync(siteDir)) {
    say(`removing the old sample site ${siteDir} (generated afresh: an old one may be of a retired schema)`);
    rmSync(siteDir, { recursive: true, force: true });
  }
  say(`generating the sample site into ${siteDir}`);
  const cost = await measureProcess(
    'generator/cli.ts',
    ['--data', dataDir, '--out', siteDir],
    (l) => say(`  [generate sample] ${l}`),
    generatorNodeArgs(),
  );
  if (!cost.ok) throw new Error(`generating the sample site failed:\n${cost.error ?? ''}`);
  await makeGeneratedLive(siteDir, cost.stdout);
  return cost;
}
