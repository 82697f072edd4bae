/**
 * Request log lines on Lambda: one JSON object per line on stdout, which Lambda sends to the function's CloudWatch log
 * group as one event each (retention set by the stack). CloudWatch Logs Insights reads the fields directly.
 */
import type { RequestLogEntry, RequestLogSink } from '../edge/edge-types.ts';
import { logJson } from '../edge/log-line.ts';

/** Value of the `type` field of request lines, to tell them from the runtime's own lines in queries. */
export const REQUEST_LINE_TYPE = 'request';

/** Writes each entry as one line of JSON to a stream (stdout by default). */
export class StdoutJsonSink implements RequestLogSink {
  private readonly out: { write(chunk: string): unknown };
  constructor(out: { write(chunk: string): unknown } = process.stdout) {
    this.out = out;
  }

  write(entry: RequestLogEntry): void {
    // A newline inside a value would split the CloudWatch event: the one log-safe writer keeps it one line.
    logJson({ type: REQUEST_LINE_TYPE, ...entry }, (chunk) => this.out.write(chunk));
  }
}
