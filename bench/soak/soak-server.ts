/**
 * Child process of the soak run: `node --import tsx bench/soak/soak-server.ts --site DIR`. Starts the real local server
 * (request log on, rate limit off so one load generator is not throttled) and prints one JSON line {url, pid} on stdout
 * when ready; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../shim/edge/env.ts';
import { cliOrExit } from '../../shim/lib/cli-run.ts';
import { startServer } from '../../shim/server.ts';
import { benchServerEnv } from '../lib/server-env.ts';

const { values } = cliOrExit({
  name: 'soak-server',
  usage: 'node bench/soak/soak-server.ts --site <dir>',
  description:
    'Child process of the soak run (started by bench/soak/soak.ts): the real local server, its memory every 10 s on stderr.',
  options: { site: { type: 'string', arg: 'dir', required: true, description: 'generated site to serve' } },
});
const logDir = mkdtempSync(join(tmpdir(), 'iad-soak-log-'));
const server = await startServer(loadConfig(benchServerEnv(values.site, logDir)));
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
// Where the memory is, every 10 s, for bench/soak/soak.ts to print: V8 heap, memory outside it (zlib and Buffers), the
// answer cache and the parsed-object cache (in stored bytes). RSS minus these is the allocator's own (freed native memory not returned to the system).
const MiB = (n: number): number => Math.round(n / 2 ** 20);
setInterval(() => {
  const m = process.memoryUsage();
  const a = server.answers?.stats();
  const p = server.siteStats?.();
  process.stderr.write(
    `[soak-mem] rss ${MiB(m.rss)} heapUsed ${MiB(m.heapUsed)} heapTotal ${MiB(m.heapTotal)} external ${MiB(m.external)} arrayBuffers ${MiB(m.arrayBuffers)} answerCache ${MiB(a?.bytes ?? 0)} (${a?.entries ?? 0} entries) parsedCache ${MiB(p?.cachedBytes ?? 0)} held (${p?.cachedObjects ?? 0} objects)\n`,
  );
}, 10_000).unref();
process.once('SIGTERM', () => {
  void server.close(2000).finally(() => {
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
});
