/**
 * Benchmark fixtures only: point a site folder at the version `npm run generate` just wrote (its JSON summary on
 * stdout names it), as a release does after its gates. `npm run generate` itself never moves a pointer.
 */
import { folderPointer } from '../../generator/publish/publish.ts';
import { beginRun, endRun, flipPointer } from '../../generator/write/site-folder.ts';

/** Make the version a finished generate run printed the live version of `siteDir`; returns it. */
export async function makeGeneratedLive(siteDir: string, generateStdout: string): Promise<string> {
  const last = generateStdout.trim().split('\n').at(-1) ?? '';
  const { version } = JSON.parse(last) as { version?: unknown };
  if (typeof version !== 'string') throw new Error(`generate printed no version: ${last.slice(0, 200)}`);
  const { run } = await beginRun(siteDir);
  try {
    await flipPointer(run, await folderPointer(siteDir, version));
  } finally {
    await endRun(run);
  }
  return version;
}
