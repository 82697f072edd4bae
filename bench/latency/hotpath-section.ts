/** Section 7 of `npm run bench`: the hot-path throughput comparison and the Lambda cold start, each failing on its own. */
import { measureHotpath, type HotpathOptions } from './hotpath.ts';
import { measureLambdaCold } from './hotpath-lambda.ts';
import type { HotpathResults } from './render-hotpath.ts';

/** Measure both parts; a part that fails is reported with its error, the other still measured. */
export async function measureHotpathSection(opts: HotpathOptions & { lambdaDir: string }): Promise<HotpathResults> {
  const out: HotpathResults = { http: null, lambda: null };
  try {
    out.http = await measureHotpath(opts);
  } catch (err) {
    out.httpError = (err as Error).message;
    opts.onProgress?.(`  hot path HTTP failed: ${out.httpError}`);
  }
  try {
    out.lambda = await measureLambdaCold(opts.site, opts.lambdaDir, Math.max(3, opts.runs + 2), opts.onProgress);
  } catch (err) {
    out.lambdaError = (err as Error).message;
    opts.onProgress?.(`  Lambda cold start failed: ${out.lambdaError}`);
  }
  return out;
}
