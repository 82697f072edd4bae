/** Send fuzz cases to a running server and tally statuses, violations and the units successful answers cost. */
import { HOST_PLACEHOLDER, type FuzzCase } from './cases.ts';
import { answeredUnits, checkReply } from './oracle.ts';
import { sendRaw, type RawReply } from './raw-http.ts';
import type { SiteIndex } from './site-index.ts';

/** The case with the Host placeholder filled in for `port`. */
export function addressed(c: FuzzCase, port: number): FuzzCase {
  const headers = c.request.headers.map(([n, v]): [string, string] => [
    n,
    v === HOST_PLACEHOLDER ? `127.0.0.1:${port}` : v,
  ]);
  return { ...c, request: { ...c.request, headers } };
}

/** A case as text someone can replay (method, target, headers, start of the body). */
export function describeCase(c: FuzzCase): string {
  const body =
    c.request.body === undefined
      ? ''
      : `\n  body (${c.request.body.byteLength} bytes): ${JSON.stringify(Buffer.from(c.request.body).toString('utf8').slice(0, 400))}`;
  const headers = c.request.headers
    .map(([n, v]) => `\n  ${n}: ${JSON.stringify(v.length > 120 ? `${v.slice(0, 120)}... (${v.length} chars)` : v)}`)
    .join('');
  return `${c.request.method} ${JSON.stringify(c.request.target.length > 300 ? `${c.request.target.slice(0, 300)}...` : c.request.target)}${headers}${body}`;
}

/** One case sent and judged. */
export interface Outcome {
  status: number | null;
  violations: string[];
  units: number;
  reply: RawReply | null;
}

/** Send `c` to 127.0.0.1:`port` and check the answer. */
export async function runCase(site: SiteIndex, port: number, c: FuzzCase): Promise<Outcome> {
  const sent = addressed(c, port);
  let reply: RawReply | null;
  try {
    reply = await sendRaw(port, sent.request);
  } catch (err) {
    return { status: null, violations: [(err as Error).message], units: 0, reply: null };
  }
  return {
    status: reply?.status ?? null,
    violations: checkReply(site, sent, reply),
    units: answeredUnits(sent, reply),
    reply,
  };
}

/** Totals of a run. */
export interface Tally {
  cases: number;
  /** Status -> count; "none" for a connection closed without an answer. */
  statuses: Map<string, number>;
  units: number;
  /** Cases with at least one violation. */
  violating: number;
  failures: { case: FuzzCase; violations: string[] }[];
  /** Violation text with numbers and quoted values blanked -> how many cases broke it, and the first of them. */
  kinds: Map<string, { count: number; example: FuzzCase }>;
}

/** A violation's kind: its text with quoted values and numbers blanked. */
export function kindOf(violation: string): string {
  return violation
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b[lf]_[a-z0-9]{16}\b/g, 'ID')
    .replace(/-?\d+(\.\d+)?/g, 'N');
}

/** An empty tally. */
export function newTally(): Tally {
  return { cases: 0, statuses: new Map(), units: 0, violating: 0, failures: [], kinds: new Map() };
}

/** Add one outcome to `tally`, keeping at most `keep` failures. */
export function record(tally: Tally, c: FuzzCase, o: Outcome, keep = 20): void {
  tally.cases++;
  const key = o.status === null ? 'none' : String(o.status);
  tally.statuses.set(key, (tally.statuses.get(key) ?? 0) + 1);
  tally.units += o.units;
  if (o.violations.length === 0) return;
  tally.violating++;
  if (tally.failures.length < keep) tally.failures.push({ case: c, violations: o.violations });
  for (const v of new Set(o.violations.map(kindOf))) {
    const seen = tally.kinds.get(v);
    if (seen === undefined) tally.kinds.set(v, { count: 1, example: c });
    else seen.count++;
  }
}

/** Run `cases` with `concurrency` requests in flight, calling `onDone` after each. */
export async function runAll(
  site: SiteIndex,
  port: number,
  cases: Iterable<FuzzCase>,
  concurrency: number,
  onDone: (c: FuzzCase, o: Outcome) => void,
): Promise<void> {
  const it = cases[Symbol.iterator]();
  const worker = async (): Promise<void> => {
    for (let next = it.next(); !next.done; next = it.next()) onDone(next.value, await runCase(site, port, next.value));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
