/** The environment of the local server a benchmark measures. */
import { resolve } from 'node:path';

/** Serve `siteDir` on an ephemeral loopback port with no rate limit, the request log in `logDir` (the caller's to remove). */
export function benchServerEnv(siteDir: string, logDir: string): Record<string, string> {
  return { PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_HOUR: '0', SITE_DIR: resolve(siteDir), LOG_DIR: logDir };
}
