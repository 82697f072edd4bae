/**
 * The command-line parser every CLI of the project uses: options declared once with their type, description and
 * default; numbers, enums and ISO weeks parsed once into typed values; --help generated from the declaration; usage
 * errors that name the option and what it accepts. Pure: argv in, a typed value, the help text or a usage error out
 * (no I/O; the runner beside start.ts, shim/lib/cli-run.ts, prints and exits). Built on node:util parseArgs.
 */
import { parseArgs } from 'node:util';
import { ISO_WEEK_FORM, isoWeekProblem, normaliseIsoWeek } from './iso-week.ts';

/** Exit statuses every CLI uses; a CLI documents any further one (e.g. prune's 3) in its spec's `exits`. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
export const EXIT_MEANING: Readonly<Record<number, string>> = {
  [EXIT.ok]: 'ok',
  [EXIT.failure]: 'failure or refusal',
  [EXIT.usage]: 'usage error',
};

interface Common {
  /** One line (or more) for --help. */
  description: string;
  /** Single-letter alias, e.g. 'h'. */
  short?: string;
}
interface Valued<T> extends Common {
  /** Placeholder of the value in --help, e.g. 'dir' (shown as <dir>). */
  arg?: string;
  /** The value when the option is absent (an array for `multiple` or `split` options). */
  default?: T | readonly T[];
  /** A missing option is a usage error. */
  required?: boolean;
  /** The option may be given more than once; the value is an array (default: empty). */
  multiple?: boolean;
  /** Each value is also split at this separator (e.g. ',' for --radii 1,15,50); implies an array value. */
  split?: string;
}
export interface StringOption extends Valued<string> {
  type: 'string';
}
export interface IntegerOption extends Valued<number> {
  type: 'integer';
  min?: number;
  max?: number;
}
export interface NumberOption extends Valued<number> {
  type: 'number';
  min?: number;
  max?: number;
}
export interface EnumOption<V extends string = string> extends Valued<V> {
  type: 'enum';
  values: readonly V[];
}
/** An ISO week (`2026-W47`): a lower-case w is read as W; a malformed week, or one its year lacks, is a usage error. */
export interface WeekOption extends Valued<string> {
  type: 'week';
}
export interface BooleanOption extends Common {
  type: 'boolean';
}
export type OptionSpec = StringOption | IntegerOption | NumberOption | EnumOption | WeekOption | BooleanOption;
export type Options = Readonly<Record<string, OptionSpec>>;

/** What a CLI accepts and what its --help says. */
export interface CliSpec<O extends Options = Options> {
  /** The name in error messages, e.g. 'generate'. */
  name: string;
  /** The synopsis, without "Usage: ", e.g. 'npm run generate -- [options]'. */
  usage: string;
  /** Prose between the synopsis and the options. */
  description?: string;
  options: O;
  /** Positional arguments: their placeholder for --help (e.g. '<old> <new>'), and how many (default: none). */
  positionals?: { min: number; max: number };
  /** Prose after the options (environment, notes). */
  epilogue?: string;
  /** What each exit status means for this CLI; the shared ones (EXIT_MEANING) fill in what it does not say ('': never used). */
  exits?: Readonly<Record<number, string>>;
}

type Scalar<S extends OptionSpec> = S extends { type: 'integer' | 'number' }
  ? number
  : S extends EnumOption<infer V>
    ? V
    : string;
type ValueOf<S extends OptionSpec> = S extends BooleanOption
  ? boolean
  : S extends { multiple: true } | { split: string }
    ? Scalar<S>[]
    : S extends { default: unknown } | { required: true }
      ? Scalar<S>
      : Scalar<S> | undefined;
/** The typed values of a spec's options. */
export type Values<O extends Options> = { -readonly [K in keyof O]: ValueOf<O[K]> };

export type CliResult<O extends Options> =
  | { kind: 'ok'; values: Values<O>; positionals: string[] }
  | { kind: 'help'; text: string }
  | { kind: 'usage'; message: string };

/** The option's flag and placeholder as --help shows them. */
function flagOf(name: string, o: OptionSpec): string {
  const short = o.short === undefined ? '' : `-${o.short}, `;
  if (o.type === 'boolean') return `${short}--${name}`;
  const arg =
    o.arg ??
    (o.type === 'enum'
      ? o.values.join('|')
      : o.type === 'integer' || o.type === 'number'
        ? 'n'
        : o.type === 'week'
          ? 'YYYY-Www'
          : 'value');
  return `${short}--${name} <${arg}>`;
}

/** What an option accepts, in words (for errors). */
export function accepts(o: OptionSpec): string {
  switch (o.type) {
    case 'boolean':
      return 'no value';
    case 'string':
      return 'a value';
    case 'enum':
      return `one of ${o.values.join(', ')}`;
    case 'week':
      return ISO_WEEK_FORM;
    case 'integer':
    case 'number': {
      const what = o.type === 'integer' ? 'an integer' : 'a number';
      if (o.max === undefined && (o.min === 0 || (o.min === 1 && o.type === 'integer')))
        return `a ${o.min === 0 ? 'non-negative' : 'positive'} ${o.type}`;
      if (o.min !== undefined && o.max !== undefined) return `${what} from ${o.min} to ${o.max}`;
      if (o.min !== undefined) return `${what} >= ${o.min}`;
      if (o.max !== undefined) return `${what} <= ${o.max}`;
      return what;
    }
  }
}

function defaultText(o: OptionSpec): string {
  if (o.type === 'boolean' || o.default === undefined || o.description.includes('(default')) return '';
  return ` (default ${String(o.default)})`;
}

/** `text` broken at spaces into lines of at most `width` characters. */
function wrap(text: string, width = 118): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** The --help text of a spec: synopsis, description, options (each with its default), epilogue, exit statuses. */
export function helpText(spec: CliSpec): string {
  const rows = Object.entries(spec.options).map(
    ([name, o]) =>
      [
        flagOf(name, o),
        `${o.description}${defaultText(o)}${o.type !== 'boolean' && o.multiple === true ? ' (repeatable)' : ''}`,
      ] as const,
  );
  rows.push(['-h, --help', 'this text']);
  const width = Math.min(28, Math.max(...rows.map(([flag]) => flag.length)));
  const lines = rows.flatMap(([flag, text]) => {
    const [first = '', ...more] = text.split('\n');
    const pad = ' '.repeat(width + 4);
    const head = flag.length > width ? [`  ${flag}`, `${pad}${first}`] : [`  ${flag.padEnd(width)}  ${first}`];
    return [...head, ...more.map((l) => `${pad}${l}`)];
  });
  const exits = { ...EXIT_MEANING, ...spec.exits };
  const exitLine = wrap(
    `Exit status: ${Object.entries(exits)
      .filter(([, meaning]) => meaning !== '')
      .map(([code, meaning]) => `${code} ${meaning}`)
      .join('; ')}.`,
  );
  return [`Usage: ${spec.usage}`, spec.description, `Options:\n${lines.join('\n')}`, spec.epilogue, exitLine]
    .filter((p) => p !== undefined && p !== '')
    .join('\n\n');
}

function parseValue(
  name: string,
  o: Exclude<OptionSpec, BooleanOption>,
  raw: string,
): { value: unknown } | { error: string } {
  const bad = (): { error: string } => ({ error: `--${name} must be ${accepts(o)}, got ${JSON.stringify(raw)}` });
  switch (o.type) {
    case 'string':
      return { value: raw };
    case 'enum':
      return (o.values as readonly string[]).includes(raw) ? { value: raw } : bad();
    case 'week': {
      const problem = isoWeekProblem(raw);
      return problem === null ? { value: normaliseIsoWeek(raw) } : { error: `--${name} ${problem}` };
    }
    case 'integer':
    case 'number': {
      const pattern = o.type === 'integer' ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
      if (!pattern.test(raw.trim())) return bad();
      const n = Number(raw);
      if (!Number.isFinite(n) || (o.type === 'integer' && !Number.isSafeInteger(n))) return bad();
      if ((o.min !== undefined && n < o.min) || (o.max !== undefined && n > o.max)) return bad();
      return { value: n };
    }
  }
}

/** Parse `argv` (the words after the script) against `spec`: the typed values, --help, or a usage error naming the option. */
export function parseCliArgs<const O extends Options>(spec: CliSpec<O>, argv: readonly string[]): CliResult<O> {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, o] of Object.entries(spec.options)) {
    config[name] = {
      type: o.type === 'boolean' ? 'boolean' : 'string',
      ...(o.short !== undefined ? { short: o.short } : {}),
      // Every option is collected as a list, so that a single-value option or a flag given twice is refused below
      // instead of the last one silently winning (`--bucket a --bucket b`) or the repeat passing unnoticed (`-q -q`).
      multiple: true,
    };
  }
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ options: config, args: [...argv], allowPositionals: true, strict: true });
  } catch (err) {
    return { kind: 'usage', message: (err as Error).message };
  }
  if (parsed.values.help === true) return { kind: 'help', text: helpText(spec) };
  const { min = 0, max = 0 } = spec.positionals ?? {};
  if (parsed.positionals.length > max)
    return {
      kind: 'usage',
      message:
        max === 0
          ? `unexpected argument ${JSON.stringify(parsed.positionals[0])}: this command takes options only`
          : `at most ${max} arguments, got ${parsed.positionals.length}`,
    };
  if (parsed.positionals.length < min)
    return {
      kind: 'usage',
      message: `${min} argument${min === 1 ? '' : 's'} needed, got ${parsed.positionals.length}`,
    };
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    const given = parsed.values[name];
    if (o.type === 'boolean') {
      const times = Array.isArray(given) ? given.length : given === undefined ? 0 : 1;
      if (times > 1)
        return {
          kind: 'usage',
          message: `--${name} given ${times === 2 ? 'twice' : `${times} times`}; it is a flag (on when given): give it once`,
        };
      values[name] = times === 1;
      continue;
    }
    const raws = given === undefined ? [] : (Array.isArray(given) ? given : [given]).map(String);
    if (o.multiple !== true && o.split === undefined && raws.length > 1)
      return {
        kind: 'usage',
        message: `--${name} given ${raws.length === 2 ? 'twice' : `${raws.length} times`} (${raws.map((r) => JSON.stringify(r)).join(', ')}); it takes one value: give it once`,
      };
    const words =
      o.split === undefined
        ? raws
        : raws.flatMap((r) =>
            r
              .split(o.split as string)
              .map((w) => w.trim())
              .filter((w) => w !== ''),
          );
    const many = o.multiple === true || o.split !== undefined;
    if (words.length === 0) {
      if (given !== undefined && o.split !== undefined)
        return {
          kind: 'usage',
          message: `--${name} must be a ${JSON.stringify(o.split)}-separated list of ${accepts(o)}, got ${JSON.stringify(raws.join(' '))}`,
        };
      if (o.required === true)
        return { kind: 'usage', message: `--${name} is required${o.type === 'string' ? '' : ` (${accepts(o)})`}` };
      values[name] =
        o.default !== undefined
          ? many
            ? Array.isArray(o.default)
              ? o.default
              : [o.default]
            : o.default
          : many
            ? []
            : undefined;
      continue;
    }
    const out: unknown[] = [];
    for (const w of words) {
      const r = parseValue(name, o, w);
      if ('error' in r) return { kind: 'usage', message: r.error };
      out.push(r.value);
    }
    values[name] = many ? out : out[0];
  }
  return { kind: 'ok', values: values as Values<O>, positionals: parsed.positionals };
}
