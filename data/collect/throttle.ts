/** Spaces request starts at least 1/rps seconds apart, across all concurrent workers. */
export class Throttle {
  private nextAt = 0;
  private readonly intervalMs: number;

  /** `rps` requests per second at most. */
  constructor(rps: number) {
    this.intervalMs = 1000 / rps;
  }

  /** Resolves when the caller may start its request. */
  async wait(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + this.intervalMs;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}
