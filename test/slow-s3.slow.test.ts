/**
 * The slow-S3 attack of issue 35 under the real server and the real S3 client, against a loopback fake S3 that trickles
 * bodies one byte a second, stalls headers or closes mid-body: 60 concurrent firm reads loop for seconds while
 * searches run. A read given up at the request's deadline is aborted and frees its socket, healthy searches keep
 * answering during the fault, and every request answers again within 5 s of the repair. In the slow project for what
 * it does: a load run of 11 s of faults whose recovery is timed, run one file at a time (`npm run test:slow`).
 */
import { describe, expect, it } from 'vitest';
import { sleep, until, useFakeS3Site, type Got } from './helpers/fake-s3-site.ts';

/** The deadline of a request's store reads in these tests (STORE_TIMEOUT_MS). */
const DEADLINE_MS = 2000;
const HEALTHY = ['/v1/attorneys?location=60601&limit=5', '/v1/attorneys?location=10001&limit=5', '/v1/coverage'];

const site = useFakeS3Site(DEADLINE_MS);
const { get } = site;

/**
 * 60 concurrent firm reads looping against `fault` for `faultMs` while healthy searches run, then the repair: returns
 * what each got and when the repair was made.
 */
async function attack(
  fault: 'trickle' | 'stall' | 'close',
  faultMs: number,
): Promise<{ slow: Got[]; healthy: Got[]; after: Got[]; repairedAt: number; heldAfterFault: boolean }> {
  await site.startServer();
  for (const path of HEALTHY) expect((await get(path)).status, `warm-up ${path}`).toBe(200);
  site.fake.fault = (key) => (key.includes('/firms/') ? fault : null);
  const stopAt = performance.now() + faultMs;
  const slow: Got[] = [];
  const healthy: Got[] = [];
  const workers = site.firmIds.map(async (id) => {
    while (performance.now() < stopAt) slow.push(await get(`/v1/firms/${id}`));
  });
  const searcher = (async () => {
    while (performance.now() < stopAt) {
      for (const path of HEALTHY) healthy.push(await get(path));
      await sleep(100);
    }
  })();
  await Promise.all([...workers, searcher]);
  // Every firm read has been given up: none may still hold a connection to S3.
  // Within a second or so: the aborts close the sockets at once, the rest is a busy shared machine.
  const heldAfterFault = await until(() => site.fake.held() === 0, 3000);
  site.fake.fault = () => null;
  const repairedAt = performance.now();
  // Rounds of every firm read and search until one is all 200 (the first may meet a busy machine), for up to 10 s.
  const round = (): Promise<Got[]> =>
    Promise.all([...site.firmIds.map((id) => get(`/v1/firms/${id}`)), ...HEALTHY.map((p) => get(p))]);
  let after = await round();
  while (after.some((got) => got.status !== 200) && performance.now() - repairedAt < 10_000) after = await round();
  return { slow, healthy, after, repairedAt, heldAfterFault };
}

describe('a slow S3 holds no socket past the deadline, starves no healthy read, and recovers at once', () => {
  it('bodies trickling one byte a second: 503 at the deadline, searches answer, all 200 within 5 s of the repair', async () => {
    // Longer than the pointer's 5 s cache, so the pointer is read again during the fault.
    const { slow, healthy, after, repairedAt, heldAfterFault } = await attack('trickle', 6000);
    expect(slow.length).toBeGreaterThanOrEqual(60);
    for (const got of slow) {
      expect(got.status, got.path).toBe(503);
      expect(Number(got.retryAfter)).toBeGreaterThan(0);
      // Given up at the deadline (generous upper bound for a shared machine), not when the body ends.
      expect(got.ended - got.started).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
      expect(got.ended - got.started).toBeLessThan(DEADLINE_MS + 4000);
    }
    expect(healthy.length).toBeGreaterThan(0);
    for (const got of healthy) expect(got.status, `${got.path} during the fault`).toBe(200);
    expect(heldAfterFault, 'trickling responses still held by the client after the fault').toBe(true);
    for (const got of after) {
      expect(got.status, `${got.path} after the repair`).toBe(200);
      expect(got.ended - repairedAt, `${got.path} answered within 5 s of the repair`).toBeLessThan(5000);
    }
  }, 40_000);

  it('headers that never come: 503 at the deadline, and all 200 within 5 s of the repair', async () => {
    const { slow, healthy, after, repairedAt, heldAfterFault } = await attack('stall', 3000);
    expect(slow.length).toBeGreaterThanOrEqual(60);
    for (const got of slow) {
      expect(got.status, got.path).toBe(503);
      expect(got.ended - got.started).toBeLessThan(DEADLINE_MS + 4000);
    }
    for (const got of healthy) expect(got.status, `${got.path} during the fault`).toBe(200);
    expect(heldAfterFault, `${site.fake.held()} stalled requests still held by the client after the fault`).toBe(true);
    for (const got of after) {
      expect(got.status, `${got.path} after the repair`).toBe(200);
      expect(got.ended - repairedAt).toBeLessThan(5000);
    }
  }, 40_000);

  it('a connection closed mid-body: 503 (never a partial 200 or a 500), and 200 once repaired', async () => {
    const { slow, healthy, after } = await attack('close', 2000);
    expect(slow.length).toBeGreaterThanOrEqual(60);
    for (const got of slow) expect(got.status, got.path).toBe(503);
    for (const got of healthy) expect(got.status, `${got.path} during the fault`).toBe(200);
    for (const got of after) expect(got.status, `${got.path} after the repair`).toBe(200);
  }, 40_000);
});
