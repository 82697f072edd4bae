/**
 * The daily salt at the edge (docs/DEPLOY.md, Request log): the CloudFront Function that logs cached requests hashes the
 * viewer address with the day's salt, read from a CloudFront KeyValueStore under `salt-<day>`. A scheduled rotation
 * copies the salt the function instances share (S3SaltProvider) into the store for today and tomorrow, so edge lines and
 * function lines hash an address alike, and deletes every other day's key, so an old salt leaves the edge within the
 * hour after its day. Pure: the store and the salts are passed in.
 */
import type { SaltProvider } from '../edge/edge-types.ts';

/** Key prefix of the salts in the KeyValueStore (the CloudFront Function reads `salt-<YYYY-MM-DD>`). */
export const EDGE_SALT_KEY_PREFIX = 'salt-';

/** The KeyValueStore key of day `day` (YYYY-MM-DD). */
export function edgeSaltKey(day: string): string {
  return `${EDGE_SALT_KEY_PREFIX}${day}`;
}

/** The UTC day (YYYY-MM-DD) of `time`. */
export function utcDay(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/** The UTC day after `day`. */
export function dayAfter(day: string): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000));
}

/** The few operations the rotation needs from a key-value store. */
export interface SaltKeyStore {
  /** Every key with its value. */
  list(): Promise<Map<string, string>>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** What one rotation did. */
export interface RotationReport {
  /** Days whose salt is now in the store. */
  days: string[];
  /** Keys written (new or changed). */
  put: string[];
  /** Keys deleted (other days' salts). */
  deleted: string[];
}

/** Put today's and tomorrow's salt into `store` (as lower-case hex), delete every other salt key. Idempotent. */
export async function rotateEdgeSalt(store: SaltKeyStore, salts: SaltProvider, now: Date): Promise<RotationReport> {
  const today = utcDay(now);
  const days = [today, dayAfter(today)];
  const wanted = new Map<string, string>();
  for (const day of days) wanted.set(edgeSaltKey(day), Buffer.from(await salts.saltFor(day)).toString('hex'));
  const existing = await store.list();
  const report: RotationReport = { days, put: [], deleted: [] };
  for (const [key, value] of wanted) {
    if (existing.get(key) === value) continue;
    await store.put(key, value);
    report.put.push(key);
  }
  for (const key of [...existing.keys()].sort()) {
    if (key.startsWith(EDGE_SALT_KEY_PREFIX) && !wanted.has(key)) {
      await store.delete(key);
      report.deleted.push(key);
    }
  }
  return report;
}
