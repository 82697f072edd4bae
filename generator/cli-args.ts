/** Argument parsing shared by the command-line tools: node:util parseArgs, a usage error (exit 2) and --help (exit 0). */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; args: string[] }>>;

/** The parsed values and positionals, or the exit status when parseCli already answered (--help, or a usage error). */
export type CliArgs<O extends Options> = { values: Parsed<O>['values']; positionals: string[] } | { exit: 0 | 2 };

/** What a tool accepts: its options (a `help` boolean among them), whether it takes positionals, and the words to parse. */
export interface CliSpec<O extends Options> {
  options: O;
  positionals?: boolean;
  /** Default: process.argv after the script. */
  args?: string[];
  /** How a usage error is told (default: the message, a blank line and the help text on stderr). */
  onUsageError?: (message: string) => void;
}

/**
 * Parse a tool's arguments. An unknown option, a missing value or an unexpected positional is a usage error (exit 2);
 * `--help` prints `help` on stdout (exit 0). Otherwise the values are the tool's to check further.
 */
export function parseCli<const O extends Options>(spec: CliSpec<O>, help: string): CliArgs<O> {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ options: spec.options, allowPositionals: true, args: spec.args ?? process.argv.slice(2) }) as Parsed<O>;
    if (spec.positionals !== true && parsed.positionals.length > 0) throw new TypeError(`Unexpected argument '${parsed.positionals[0] ?? ''}'. This command does not take positional arguments`);
  } catch (err) {
    const message = (err as Error).message;
    if (spec.onUsageError !== undefined) spec.onUsageError(message);
    else process.stderr.write(`${message}\n\n${help}\n`);
    return { exit: 2 };
  }
  if ((parsed.values as { help?: unknown }).help === true) {
    process.stdout.write(`${help}\n`);
    return { exit: 0 };
  }
  return { values: parsed.values, positionals: parsed.positionals };
}
