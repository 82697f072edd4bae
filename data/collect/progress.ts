/** Progress on stderr: a bar with ETA, spend and error counts (redrawn on a terminal, a line every 10% otherwise). */

/** Counters the progress line shows. */
export interface ProgressState {
  done: number;
  total: number;
  spentUsd: number;
  retries: number;
  errors: number;
}

const fmtDuration = (s: number): string =>
  s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(Math.floor(s % 60)).padStart(2, '0')}s`
      : `${Math.ceil(s)}s`;

/** One progress line for `state`, `elapsedMs` after `startDone` samples were already done. */
export function progressLine(state: ProgressState, startDone: number, elapsedMs: number): string {
  const width = 24;
  const frac = state.total === 0 ? 1 : state.done / state.total;
  const filled = Math.round(frac * width);
  const bought = state.done - startDone;
  const eta = bought > 0 ? fmtDuration(((state.total - state.done) * elapsedMs) / bought / 1000) : '?';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${state.done}/${state.total} ${(frac * 100).toFixed(1)}% | $${state.spentUsd.toFixed(2)} spent | ${state.retries} retries, ${state.errors} errors | ETA ${eta}`;
}

/** Writes progress lines to a stream, throttled. */
export class Progress {
  private readonly started = Date.now();
  private lastAt = 0;
  private lastDecile = -1;

  private readonly state: ProgressState;
  private readonly startDone: number;
  private readonly out: NodeJS.WriteStream;
  private readonly quiet: boolean;
  /** `quiet` writes nothing. */
  constructor(state: ProgressState, startDone: number, out: NodeJS.WriteStream = process.stderr, quiet = false) {
    this.state = state;
    this.startDone = startDone;
    this.out = out;
    this.quiet = quiet;
  }

  /** Redraws if due. */
  tick(): void {
    if (this.quiet) return;
    const now = Date.now();
    const line = progressLine(this.state, this.startDone, now - this.started);
    if (this.out.isTTY) {
      if (now - this.lastAt < 200 && this.state.done < this.state.total) return;
      this.lastAt = now;
      this.out.write(`\r${line}\u001b[K`);
      return;
    }
    const decile = this.state.total === 0 ? 10 : Math.floor((this.state.done * 10) / this.state.total);
    if (decile === this.lastDecile) return;
    this.lastDecile = decile;
    this.out.write(`${line}\n`);
  }

  /** A message on its own line (a retry, an error). */
  note(message: string): void {
    if (this.quiet) return;
    this.out.write(`${this.out.isTTY ? '\r\u001b[K' : ''}${message}\n`);
  }

  /** Ends the bar's line. */
  finish(): void {
    if (this.quiet) return;
    this.lastAt = 0;
    this.tick();
    if (this.out.isTTY) this.out.write('\n');
  }
}
