/** s3rver (bench/lib/s3rver.ts) around the tests of a file or a describe block: vitest's hooks start and stop it. */
import { afterAll, beforeAll } from 'vitest';
import { S3RVER_ENV, startS3rver, type RunningS3rver, type StartS3rverOptions } from '../../bench/lib/s3rver.ts';

/** Options of useS3rver: startS3rver's, and whether to put S3RVER_ENV into process.env once it runs. */
export interface UseS3rverOptions extends StartS3rverOptions {
  credentialsInEnv?: boolean;
}

/**
 * s3rver started before the tests of the file (or describe block) that calls this and stopped after them (its hooks
 * are registered where it is called: call it before hooks that use it). Read the returned handle only in hooks and tests.
 */
export function useS3rver(options: UseS3rverOptions = {}): RunningS3rver {
  let running: RunningS3rver | undefined;
  const now = (): RunningS3rver => {
    if (running === undefined) throw new Error('s3rver is not running: read useS3rver() in hooks and tests only');
    return running;
  };
  beforeAll(async () => {
    running = await startS3rver(options);
    if (options.credentialsInEnv === true) Object.assign(process.env, S3RVER_ENV);
  });
  afterAll(async () => {
    await running?.stop();
  });
  return {
    get endpoint() {
      return now().endpoint;
    },
    get port() {
      return now().port;
    },
    get buckets() {
      return now().buckets;
    },
    get clientOptions() {
      return now().clientOptions;
    },
    get requests() {
      return now().requests;
    },
    stop: () => now().stop(),
  };
}
