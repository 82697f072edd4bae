/** What a week costs, and the hard budget checked before every billable request. */
import { BudgetExceededError } from './provider.ts';

/**
 * USD per 1,000 Text Search requests in the Enterprise SKU (phone, website and opening hours are Enterprise fields),
 * 0-100,000 requests a month, Google Maps Platform price list of 2025. Every page is one request. Check the current
 * list before a run; `--price-per-1000` overrides it. The monthly free allowance (1,000 Enterprise events) is ignored.
 */
export const TEXT_SEARCH_ENTERPRISE_USD_PER_1000 = 35;

/** Cost of `requests` requests at `per1000` USD per thousand, rounded up to whole cents (an estimate never low). */
export function costUsd(requests: number, per1000: number): number {
  return Math.ceil((requests * per1000) / 10 - 1e-9) / 100;
}

/** A hard spending limit: `reserve()` before each request, `refund()` when the provider did not bill it. */
export class Budget {
  private reserved = 0;

  private spentRequests = 0;

  readonly limitUsd: number;
  readonly per1000: number;
  /** A limit of `limitUsd` at `per1000` USD per thousand requests. */
  constructor(limitUsd: number, per1000: number) {
    this.limitUsd = limitUsd;
    this.per1000 = per1000;
  }

  /** Counts requests bought by earlier runs of the week (from the answers log) against the limit. */
  addSpent(requests: number): void {
    this.spentRequests += requests;
  }

  /** Requests bought (or in flight) so far. */
  get requests(): number {
    return this.spentRequests + this.reserved;
  }

  /** USD spent (or in flight) so far. */
  get spentUsd(): number {
    return (this.requests * this.per1000) / 1000;
  }

  /** Claims one request's cost or throws BudgetExceededError when it would pass the limit. */
  reserve(): void {
    if (((this.requests + 1) * this.per1000) / 1000 > this.limitUsd + 1e-9) {
      throw new BudgetExceededError(
        `budget reached: $${this.spentUsd.toFixed(2)} of $${this.limitUsd.toFixed(2)} spent, the next request would pass it`,
      );
    }
    this.reserved++;
  }

  /** The reserved request was answered and billed. */
  commit(): void {
    this.reserved--;
    this.spentRequests++;
  }

  /** The reserved request was not billed (an error answer). */
  refund(): void {
    this.reserved--;
  }
}
