/** `npm run research -- --week 2026-W47 [--log var/log] [--cloudwatch export.jsonl] [--edge edge.jsonl] [--out var/research]`: weekly search counts. */
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mondayOfIsoWeek } from '../inputs/week.ts';
import { countSearches, EdgeLine, LogLine, SUPPRESS_BELOW, type EdgeLineT, type LogLineT } from './counts.ts';
import { EXIT, printUsageError, runCli } from '../../shim/lib/cli-run.ts';

const SPEC = {
  name: 'research',
  usage: 'npm run research -- --week <YYYY-Www> [options]',
  description: `Counts the week's answered searches (REST GET /v1/attorneys and MCP find_injury_attorneys, status 200) by measured
metro and by ZIP3, from the resolved metro and zip3 fields of the request log (no location is resolved again).
Cells with fewer than ${SUPPRESS_BELOW} searches are shown as suppressed, and so are the next-smallest cells (or the
total) where the total minus the shown cells would give a suppressed count away (complementary suppression).
Writes <out>/<week>.json and prints a summary. Inputs: --log, --cloudwatch, or both; --edge beside them.`,
  options: {
    week: { type: 'week', required: true, description: 'ISO week, Monday to Sunday UTC (required)' },
    log: {
      type: 'string',
      arg: 'dir',
      description: 'local request log folder, requests-YYYY-MM-DD.jsonl',
      default: 'var/log',
    },
    cloudwatch: {
      type: 'string',
      arg: 'file',
      description: `a CloudWatch export of the Lambda's request lines, one JSON object per line: either the
line itself or an event with a "message" holding it, e.g.
  aws logs filter-log-events --log-group-name <group> \\
    --filter-pattern '{ $.type = "request" }' --start-time <ms> --end-time <ms> \\
    --output json | jq -c '.events[]' > export.jsonl`,
    },
    edge: {
      type: 'string',
      arg: 'file',
      description: `a CloudWatch export of the edge request log (/aws/cloudfront/function/<name>, us-east-1),
in the same form. With it, REST searches are counted from the edge lines (every request,
cache hit or miss), each resolved through a function line for the same location; without
it, cached answers on AWS are not counted.`,
    },
    out: { type: 'string', arg: 'dir', description: 'output folder', default: 'var/research' },
  },
  exits: { [EXIT.ok]: 'written', [EXIT.failure]: 'unreadable input' },
} as const;

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

async function* jsonLines<T>(
  file: string,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  bad: { n: number },
): AsyncGenerator<T> {
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const text of rl) {
    if (text.trim() === '') continue;
    try {
      let value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string') {
        // A CloudWatch event: the line is its message (an edge line may follow a request-id prefix).
        const message = (value as { message: string }).message;
        value = JSON.parse(message.slice(Math.max(0, message.indexOf('{'))));
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) yield parsed.data;
      else bad.n++;
    } catch {
      bad.n++;
    }
  }
}

async function main(): Promise<number> {
  const cli = runCli(SPEC);
  if ('exit' in cli) return cli.exit;
  const args = cli.values;
  // The log folder must exist unless the lines come from a CloudWatch export (a mistyped folder is not an empty week).
  if (!existsSync(args.log) && args.cloudwatch === undefined)
    return printUsageError(
      SPEC,
      `--log ${args.log} does not exist: give the folder of the request log (requests-YYYY-MM-DD.jsonl), or --cloudwatch <export.jsonl>`,
    );
  const week = args.week;
  const from = mondayOfIsoWeek(week);
  const to = addDays(from, 6);
  const files: string[] = [];
  for (let i = 0; i < 7; i++) {
    const f = join(args.log, `requests-${addDays(from, i)}.jsonl`);
    if (existsSync(f)) files.push(f);
  }
  for (const given of [args.cloudwatch, args.edge]) {
    if (given !== undefined && !existsSync(given)) {
      return printUsageError(SPEC, `${given} does not exist`);
    }
  }
  if (args.cloudwatch !== undefined) files.push(args.cloudwatch);
  const bad = { n: 0 };
  const lines: LogLineT[] = [];
  for (const f of files) {
    process.stderr.write(`research: reading ${f}\n`);
    for await (const l of jsonLines(f, LogLine, bad)) lines.push(l);
  }
  const edge: EdgeLineT[] = [];
  if (args.edge !== undefined) {
    process.stderr.write(`research: reading edge lines ${args.edge}\n`);
    for await (const l of jsonLines(args.edge, EdgeLine, bad)) edge.push(l);
  }
  const counts = countSearches(lines, week, from, to, SUPPRESS_BELOW, edge);
  await mkdir(args.out, { recursive: true });
  const out = join(args.out, `${week}.json`);
  await writeFile(out, `${JSON.stringify(counts, null, 2)}\n`);
  const shown = (cells: typeof counts.by_metro): number => cells.filter((c) => c.searches !== null).length;
  process.stderr.write(
    `research: ${lines.length} lines from ${files.length} file(s)${edge.length > 0 ? `, ${edge.length} edge lines (${counts.edge_unresolved} searches unresolved)` : ''}${bad.n > 0 ? `, ${bad.n} unreadable skipped` : ''}\n`,
  );
  process.stdout.write(
    `${JSON.stringify({ week, from, to, searches: counts.searches, metros: counts.by_metro.length, metros_shown: shown(counts.by_metro), zip3s: counts.by_zip3.length, zip3s_shown: shown(counts.by_zip3), out })}\n`,
  );
  return 0;
}

process.exitCode = await main();
