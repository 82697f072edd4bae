/**
 * How a command-line tool tells why it stopped. An expected refusal (a removed listing, a bad input, a version that
 * exists with other content) or an operational error (the store did not answer) is one line: its message. A
 * programming error (TypeError, ReferenceError, RangeError) also shows its stack, as does any error when the
 * environment sets DEBUG.
 */

const BUGS = [TypeError, ReferenceError, RangeError, EvalError];

/** The text to print for `err`: the message alone, or the stack for a programming error (or with DEBUG set). */
export function describeFailure(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  if (!(err instanceof Error)) return String(err);
  const bug = BUGS.some((c) => err instanceof c);
  if ((bug || (env.DEBUG ?? '') !== '') && err.stack !== undefined) return err.stack;
  return err.message.split('\n')[0] ?? err.message;
}
