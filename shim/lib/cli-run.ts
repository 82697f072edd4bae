/** The runner of every CLI: parse with shim/lib/cli-args.ts, print --help (exit 0) or a usage error (exit 2). */
import { EXIT, parseCliArgs, type CliSpec, type Options, type Values } from './cli-args.ts';

export { EXIT } from './cli-args.ts';
export type { CliSpec } from './cli-args.ts';

/** The parsed values and positionals, or the exit status when the runner already answered (--help, a usage error). */
export type CliArgs<O extends Options> = { values: Values<O>; positionals: string[] } | { exit: number };

/**
 * How a usage error is printed, on stderr: `<name>: <message>`, a blank line, the synopsis and where every option is
 * described. Not the whole --help: sixty lines after the one that names the mistake bury it.
 */
export function printUsageError(spec: CliSpec, message: string): typeof EXIT.usage {
  process.stderr.write(`${spec.name}: ${message}\n\nUsage: ${spec.usage}\n(--help for every option)\n`);
  return EXIT.usage;
}

/** Parse `argv` (default: process.argv after the script); --help and usage errors are answered here. */
export function runCli<const O extends Options>(
  spec: CliSpec<O>,
  argv: readonly string[] = process.argv.slice(2),
): CliArgs<O> {
  const r = parseCliArgs(spec, argv);
  if (r.kind === 'help') {
    process.stdout.write(`${r.text}\n`);
    return { exit: EXIT.ok };
  }
  if (r.kind === 'usage') return { exit: printUsageError(spec, r.message) };
  return { values: r.values, positionals: r.positionals };
}

/** For scripts that parse at top level: the values, or the process ends (help 0, usage error 2). */
export function cliOrExit<const O extends Options>(
  spec: CliSpec<O>,
  argv: readonly string[] = process.argv.slice(2),
): { values: Values<O>; positionals: string[] } {
  const r = runCli(spec, argv);
  if ('exit' in r) process.exit(r.exit);
  return r;
}
