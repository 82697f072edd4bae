/** `npm start`: serve what is published; release the sample through the gates only when there is no site yet. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, ENV_HELP, loadConfig, type Config } from './shim/edge/env.ts';
import { wildcardHostWarning } from './shim/base-url-warning.ts';
import { startServer, type RunningServer } from './shim/server.ts';
import { EXIT, runCli } from './shim/lib/cli-run.ts';
import { logLine } from './shim/edge/log-line.ts';
import { liveUnservable } from './generator/release/servable.ts';

const SPEC = {
  name: 'start',
  usage: 'npm start [-- --no-build]',
  description: `Serves the directory API on http://HOST:PORT: GET /v1/attorneys, /v1/firms/{listing_id}, /v1/coverage, /v1/changes,
/openapi.json, /r/{listing_id} and POST /mcp.

Serves what SITE_DIR's current.json names; starting the server never publishes. Only when SITE_DIR has no
current.json yet does it build one, and then as a release does (npm run release: gates, verify, a release record
beside LOG_DIR in releases/), synthesising the sample inputs first when DATA_DIR/weeks is missing; a refused week
is not served (exit 1). A live version whose schemas this release does not read is served as it is too (every
search a 503), after saying so and what to release. When inputs under DATA_DIR (metros.json, corrections.jsonl,
removals.jsonl, weeks/) changed since the site was published, it says so and names the release command, and serves
the published version as it is.`,
  options: {
    'no-build': {
      type: 'boolean',
      description: 'serve SITE_DIR as it is, without checking it or releasing the sample',
    },
  },
  epilogue: `Environment (also read from a .env file in the working directory when there is one: KEY=value lines; a variable
already set in the environment wins over the file):
${Object.entries(ENV_HELP)
  .map(([name, text]) => `  ${name.padEnd(20)} ${text}`)
  .join('\n')}`,
  exits: { [EXIT.ok]: 'stopped cleanly', [EXIT.failure]: 'bad environment, a refused first release, or a failure' },
} as const;

/** Optional settings file, KEY=value lines, read before the environment is parsed. */
const ENV_FILE = '.env';

function say(text: string): void {
  // The service's own lines, each through the log-safe writer.
  for (const line of text.split('\n')) logLine(line);
}

/** Newest modification time (ms) of the files under `path`, or 0 when there are none. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

/** Make sure SITE_DIR holds a published site: the sample's first release (gates, verify, record) when it has none. */
async function ensureSite(config: Config): Promise<void> {
  const siteDir = resolve(config.siteDir);
  const dataDir = resolve(config.dataDir);
  const pointer = join(siteDir, 'current.json');
  const weeksDir = join(dataDir, 'weeks');
  if (existsSync(pointer)) {
    // The server still starts (a week it can read, once released, is served without a restart), but says so first.
    const why = await liveUnservable(siteDir);
    if (why !== null)
      say(
        `${siteDir} cannot be served by this release: ${why}. Every search answers 503 until a week this release reads is live. Release one with: npm run release -- --data ${config.dataDir} --site ${config.siteDir}; if that refuses the live version as too old to compare with, release into an empty folder instead (--site <new folder>) and serve that (SITE_DIR=<new folder>), or move ${config.siteDir} aside and npm start releases it again.`,
      );
    const siteTime = statSync(pointer).mtimeMs;
    const inputs = ['metros.json', 'corrections.jsonl', 'removals.jsonl', 'weeks'].map((name) =>
      newestMtime(join(dataDir, name)),
    );
    if (Math.max(...inputs) > siteTime) {
      say(
        `Inputs under ${dataDir} changed since ${siteDir} was published; serving the published version as it is. Publish them with: npm run release -- --data ${config.dataDir} --site ${config.siteDir}`,
      );
    }
    return;
  }
  if (!existsSync(join(dataDir, 'metros.json')))
    throw new Error(`No site in ${siteDir} and no inputs in ${dataDir} (metros.json is missing): nothing to serve.`);
  if (!existsSync(weeksDir)) {
    say(`No inputs in ${weeksDir}: synthesising the sample dataset (synthetic, fictional firms) ...`);
    const { synthesize } = await import('./data/synth/synthesize.ts');
    await synthesize({ outDir: weeksDir });
  }
  say(
    `No site in ${siteDir}: releasing it from ${dataDir} as npm run release does (gates, verify, release record) ...`,
  );
  const { release } = await import('./generator/release/release.ts');
  const rec = await release({
    dataDir,
    siteDir,
    recordsDir: join(dirname(resolve(config.logDir)), 'releases'),
    log: say,
  });
  if (rec.outcome !== 'released') {
    throw new Error(
      `the first release of ${siteDir} was ${rec.outcome} at ${rec.failed_step ?? '?'} (${rec.recordPath}); nothing is published, so nothing is served. Fix the inputs and run npm run release.`,
    );
  }
  say(`Released version ${rec.version ?? '?'} (week ${rec.week ?? '?'}).`);
}

/** Longest a stop on SIGTERM or SIGINT may take, in milliseconds (open requests get 5 s, the log as long again). */
const STOP_DEADLINE_MS = 12_000;

async function main(argv: string[]): Promise<number> {
  const cli = runCli(SPEC, argv);
  if ('exit' in cli) return cli.exit;
  // Settings from ./.env (the real environment wins): the same file works under npm start, node start.ts and a supervisor.
  if (existsSync(ENV_FILE)) process.loadEnvFile(ENV_FILE);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message);
      return 1;
    }
    throw err;
  }
  // A bucket is published by npm run release/publish; only a local folder is built here.
  if (!cli.values['no-build'] && config.siteBucket === null) await ensureSite(config);

  let running: RunningServer;
  try {
    running = await startServer(config);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    say(
      `Cannot listen on ${config.host}:${config.port}: ${code ?? (err instanceof Error ? err.message : String(err))}`,
    );
    return 1;
  }
  const base = running.url;
  const warning = wildcardHostWarning(config.host, config.publicBaseUrl, base);
  if (warning !== null) say(warning);
  process.stdout.write(
    `Serving ${config.siteBucket === null ? resolve(config.siteDir) : `s3://${config.siteBucket.bucket}/${config.siteBucket.prefix ?? ''}`} on ${base}  (request log: ${resolve(config.logDir)}, rate limit: ${config.rateLimitPerHour === 0 ? 'off' : `${config.rateLimitPerHour}/hour`})\n` +
      `Try:\n  curl '${base}/v1/attorneys?location=Chicago,%20IL&limit=3'\n  curl '${base}/openapi.json'\n`,
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      say(`${signal} again: exiting now.`);
      process.exit(1);
    }
    stopping = true;
    say(`${signal}: finishing open requests and shutting down ...`);
    // Whatever still waits (a read of a hung mount cannot be cancelled), the process stops within STOP_DEADLINE_MS.
    setTimeout(() => {
      say(`Shutdown took longer than ${STOP_DEADLINE_MS / 1000} s: exiting now.`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        say(`Shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    say(`Error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
