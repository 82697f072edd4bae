/** The shared CLI parser (shim/lib/cli-args.ts): typed values, bounds, enums, weeks, repeats, usage errors, --help. */
import { describe, expect, it } from 'vitest';
import { EXIT, helpText, parseCliArgs, type CliSpec } from '../shim/lib/cli-args.ts';

const spec = {
  name: 'tool',
  usage: 'tool [options] <file>',
  description: 'Does a thing.',
  positionals: { min: 0, max: 1 },
  options: {
    out: { type: 'string', arg: 'dir', description: 'output folder', default: 'site/' },
    week: { type: 'week', description: 'week to publish' },
    keep: { type: 'integer', min: 1, max: 100, description: 'versions kept', default: 3 },
    grace: { type: 'number', min: 0, description: 'seconds of grace' },
    mode: { type: 'enum', values: ['fast', 'slow'], description: 'how', default: 'fast' },
    force: { type: 'string', multiple: true, description: 'gate to let through' },
    radii: { type: 'integer', min: 1, split: ',', description: 'radii in miles', default: [1, 15, 50] },
    only: { type: 'enum', values: ['a', 'b', 'c'], split: ',', description: 'sections' },
    quiet: { type: 'boolean', description: 'no progress' },
  },
  epilogue: 'Environment: none.',
  exits: { 3: 'stopped part way' },
} as const satisfies CliSpec;

function ok(argv: string[]) {
  const r = parseCliArgs(spec, argv);
  if (r.kind !== 'ok') throw new Error(`expected values, got ${JSON.stringify(r)}`);
  return r;
}
function usage(argv: string[]): string {
  const r = parseCliArgs(spec, argv);
  if (r.kind !== 'usage') throw new Error(`expected a usage error, got ${JSON.stringify(r)}`);
  return r.message;
}

describe('parseCliArgs', () => {
  it('gives typed values with defaults when nothing is passed', () => {
    const { values, positionals } = ok([]);
    expect(values).toEqual({
      out: 'site/',
      week: undefined,
      keep: 3,
      grace: undefined,
      mode: 'fast',
      force: [],
      radii: [1, 15, 50],
      only: [],
      quiet: false,
    });
    expect(positionals).toEqual([]);
    // The types follow the declaration: these lines would not compile otherwise.
    const keep: number = values.keep;
    const mode: 'fast' | 'slow' = values.mode;
    const week: string | undefined = values.week;
    const radii: number[] = values.radii;
    expect([keep, mode, week, radii.length]).toEqual([3, 'fast', undefined, 3]);
  });

  it('parses integers, numbers and enums once, into their types', () => {
    const { values, positionals } = ok([
      '--keep',
      '12',
      '--grace=2.5',
      '--mode',
      'slow',
      '--quiet',
      '--out',
      'x/',
      'file.json',
    ]);
    expect(values.keep).toBe(12);
    expect(values.grace).toBe(2.5);
    expect(values.mode).toBe('slow');
    expect(values.quiet).toBe(true);
    expect(values.out).toBe('x/');
    expect(positionals).toEqual(['file.json']);
  });

  it('refuses integers outside their bounds or not whole, naming the option and the range', () => {
    expect(usage(['--keep', '0'])).toBe('--keep must be an integer from 1 to 100, got "0"');
    expect(usage(['--keep', '101'])).toContain('--keep must be an integer from 1 to 100');
    expect(usage(['--keep', '2.5'])).toContain('--keep must be an integer');
    expect(usage(['--keep', 'ten'])).toContain('got "ten"');
    expect(usage(['--keep', ''])).toContain('--keep');
    expect(usage(['--grace=-1'])).toBe('--grace must be a non-negative number, got "-1"');
    expect(usage(['--grace', 'Infinity'])).toContain('--grace must be a non-negative number');
    expect(usage(['--grace', '1e400'])).toContain('--grace must be a non-negative number');
    expect(ok(['--keep', '100']).values.keep).toBe(100);
    expect(ok(['--grace', '0']).values.grace).toBe(0);
  });

  it('refuses a value outside an enum, listing what it accepts', () => {
    expect(usage(['--mode', 'medium'])).toBe('--mode must be one of fast, slow, got "medium"');
    expect(usage(['--only', 'a,z'])).toBe('--only must be one of a, b, c, got "z"');
  });

  it('collects repeated options and comma-separated lists', () => {
    expect(ok(['--force', 'a=1', '--force', 'b=2']).values.force).toEqual(['a=1', 'b=2']);
    expect(ok(['--radii', '5,10', '--radii', '20']).values.radii).toEqual([5, 10, 20]);
    expect(ok(['--only', 'c, a']).values.only).toEqual(['c', 'a']);
    expect(usage(['--radii', '5,0'])).toContain('--radii must be a positive integer, got "0"');
    expect(usage(['--radii', ','])).toContain('--radii must be a ","-separated list');
  });

  it('refuses a single-value option given twice, naming it (the last one no longer wins silently)', () => {
    expect(usage(['--keep', '1', '--keep', '2'])).toBe(
      '--keep given twice ("1", "2"); it takes one value: give it once',
    );
    expect(usage(['--week', '2026-W46', '--out', 'x', '--week', '2026-W47'])).toBe(
      '--week given twice ("2026-W46", "2026-W47"); it takes one value: give it once',
    );
    expect(usage(['--out=a', '--out', 'a'])).toContain('--out given twice');
    expect(usage(['--mode', 'fast', '--mode', 'slow'])).toContain('--mode given twice');
    // Repeatable options are still fine.
    expect(ok(['--force', 'a=1', '--force', 'b=2', '--quiet']).values.force).toEqual(['a=1', 'b=2']);
  });

  it('refuses a flag given twice, naming it (a repeat was accepted silently)', () => {
    expect(usage(['--quiet', '--keep', '2', '--quiet'])).toBe(
      '--quiet given twice; it is a flag (on when given): give it once',
    );
    expect(usage(['--quiet', '--quiet', '--quiet'])).toContain('--quiet given 3 times');
    const short = {
      name: 't',
      usage: 't',
      options: { verbose: { type: 'boolean', short: 'v', description: 'more' } },
    } as const satisfies CliSpec;
    expect(parseCliArgs(short, ['-v', '--verbose'])).toEqual({
      kind: 'usage',
      message: '--verbose given twice; it is a flag (on when given): give it once',
    });
    expect(parseCliArgs(short, ['-v'])).toMatchObject({ kind: 'ok', values: { verbose: true } });
  });

  it('reads an ISO week, a lower-case w as W, and refuses a malformed week or one its year lacks', () => {
    expect(ok(['--week', '2026-W47']).values.week).toBe('2026-W47');
    expect(ok(['--week', '2026-w47']).values.week).toBe('2026-W47');
    expect(ok(['--week=2026-W53']).values.week).toBe('2026-W53');
    expect(usage(['--week', '2026-47'])).toBe('--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "2026-47"');
    expect(usage(['--week', '2026-W60'])).toBe(
      '--week must be an ISO week YYYY-Www, e.g. 2026-W47, got "2026-W60": 2026 has ISO weeks W01 to W53',
    );
    // 2027 has 52 weeks, 2026 has 53; there is no week 0.
    expect(usage(['--week', '2027-W53'])).toContain('2027 has ISO weeks W01 to W52');
    expect(usage(['--week', '2026-w00'])).toContain('got "2026-w00": 2026 has ISO weeks W01 to W53');
    expect(usage(['--week', 'november'])).toContain('--week must be an ISO week YYYY-Www');
    expect(usage(['--week', ' 2026-W47'])).toContain('got " 2026-W47"');
    const weeks = {
      name: 't',
      usage: 't',
      options: {
        weeks: { type: 'week', split: ',', description: 'weeks' },
        from: { type: 'week', required: true, description: 'first week' },
      },
    } as const satisfies CliSpec;
    const r = parseCliArgs(weeks, ['--weeks', '2026-W46,2026-w47', '--from', '2026-w01']);
    expect(r).toMatchObject({ kind: 'ok', values: { weeks: ['2026-W46', '2026-W47'], from: '2026-W01' } });
    expect(parseCliArgs(weeks, ['--from', '2026-W01', '--weeks', '2026-W46,2026-W99'])).toEqual({
      kind: 'usage',
      message: '--weeks must be an ISO week YYYY-Www, e.g. 2026-W47, got "2026-W99": 2026 has ISO weeks W01 to W53',
    });
    expect(parseCliArgs(weeks, [])).toEqual({
      kind: 'usage',
      message: '--from is required (an ISO week YYYY-Www, e.g. 2026-W47)',
    });
  });

  it('refuses unknown options, a missing value, a value for a flag and extra positionals', () => {
    expect(usage(['--nope'])).toContain("'--nope'");
    expect(usage(['--keep'])).toContain('--keep');
    expect(usage(['--quiet=yes'])).toContain('--quiet');
    expect(usage(['a', 'b'])).toContain('at most 1');
    const none = parseCliArgs({ name: 't', usage: 't', options: {} }, ['x']);
    expect(none).toEqual({ kind: 'usage', message: 'unexpected argument "x": this command takes options only' });
    const need = parseCliArgs({ name: 't', usage: 't <a> <b>', options: {}, positionals: { min: 2, max: 2 } }, ['x']);
    expect(need.kind).toBe('usage');
  });

  it('refuses a missing required option', () => {
    const s = {
      name: 't',
      usage: 't',
      options: { bucket: { type: 'string', required: true, description: 'S3 bucket' } },
    } as const;
    expect(parseCliArgs(s, [])).toEqual({ kind: 'usage', message: '--bucket is required' });
    const r = parseCliArgs(s, ['--bucket', 'b']);
    expect(r.kind === 'ok' && r.values.bucket).toBe('b');
  });

  it('answers --help and -h with help generated from the declaration, whatever else is given', () => {
    for (const argv of [['--help'], ['-h'], ['--keep', '0', '--help']]) {
      const r = parseCliArgs(spec, argv);
      expect(r.kind).toBe('help');
    }
    const text = helpText(spec);
    expect(text.startsWith('Usage: tool [options] <file>\n\nDoes a thing.\n\nOptions:\n')).toBe(true);
    expect(text).toMatch(/ {2}--out <dir> +output folder \(default site\/\)\n/);
    expect(text).toMatch(/--keep <n> +versions kept \(default 3\)/);
    expect(text).toMatch(/--week <YYYY-Www> +week to publish\n/);
    expect(text).toMatch(/--mode <fast\|slow> +how \(default fast\)/);
    expect(text).toMatch(/--force <value> +gate to let through \(repeatable\)/);
    expect(text).toMatch(/--radii <n> +radii in miles \(default 1,15,50\)/);
    expect(text).toMatch(/--quiet +no progress\n/);
    expect(text).toMatch(/-h, --help +this text/);
    expect(text).toContain('Environment: none.');
    expect(text.endsWith('Exit status: 0 ok; 1 failure or refusal; 2 usage error; 3 stopped part way.')).toBe(true);
    // every declared option is in the help
    for (const name of Object.keys(spec.options)) expect(text).toContain(`--${name}`);
  });

  it('documents the shared exit statuses', () => {
    expect(EXIT).toEqual({ ok: 0, failure: 1, usage: 2 });
  });
});
