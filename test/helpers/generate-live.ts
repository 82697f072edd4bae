/**
 * Test fixtures only: generate a week into a site folder and point the folder at it directly, as a release does once
 * its gates, removals and verify pass. No operator tool does this: `npm run generate` never moves a pointer.
 */
import { generate, type GenerateOptions, type GenerateResult } from '../../generator/generate.ts';
import { folderPointer } from '../../generator/publish/publish.ts';
import { beginRun, endRun, flipPointer, pruneVersions } from '../../generator/write/site-folder.ts';

/** `generate(opts)`, then `opts.outDir`'s current.json names the new version (old versions pruned as a release does). */
export async function generateLive(opts: GenerateOptions): Promise<GenerateResult> {
  const r = await generate(opts);
  const { run } = await beginRun(opts.outDir);
  try {
    await flipPointer(run, await folderPointer(opts.outDir, r.version));
    r.pruned.push(...(await pruneVersions(run, opts.retention)));
  } finally {
    await endRun(run);
  }
  return r;
}
