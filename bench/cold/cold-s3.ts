/**
 * Cold path over the real S3 path: the site published with publishSite (gzip on, as in production) to s3rver on
 * loopback, then each cold query on a new site source over S3Store, counting objects, decoded bytes (what the shim
 * parses), bytes on the wire (the stored, gzip-compressed bodies) and the query's wall time. A site too large to
 * publish whole (a million objects take s3rver over half an hour) is measured on the objects its query sets read:
 * the same queries run from the folder first, and just the keys they read are stored, encoded as publishSite does.
 */
import { resolve } from 'node:path';
import { publishSite, putSiteObjects } from '../../generator/publish/publish.ts';
import { FolderStore } from '../../shim/store/folder.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { createSiteSource } from '../../shim/search/site-reader.ts';
import { S3Store } from '../../shim/store/s3.ts';
import { startS3rver } from '../lib/s3rver.ts';
import { summariseCold, type ColdReads } from './cold.ts';
import { answerableSets, askCold, coldQuerySets, type ColdQuery } from './query-sets.ts';
import { CountingStore, type StoreRead } from '../lib/counting-store.ts';
import { metroZips } from './metro-zips.ts';
import { RoundStore } from './round-store.ts';
import { allMetroPoints, type QueryPoint } from '../lib/points.ts';
import { median, quantile } from '../lib/stats.ts';

/** Cold reads of one query set over S3: the ColdReads figures (bytes = decoded) plus wire bytes and latency. */
export interface ColdS3Reads extends ColdReads {
  /** Bytes of the response bodies as received (stored objects, gzip-compressed where published so), per query. */
  wireBytes: { median: number; max: number };
  /** The query with the most bytes on the wire. */
  worstWire: { query: string; objects: number; wireBytes: number; decodedBytes: number };
  /** Wall time of one cold findAttorneys (new site source, empty cache) over loopback, in ms, over every pass. */
  latencyMs: { median: number; p99: number; max: number; samples: number };
}

/** The S3 cold-path measurement: how the site was published, then each query set. */
export interface ColdS3Report {
  /** What the store ran on, for the report. */
  server: string;
  publish: { objects: number; gzipped: number; rawBytes: number; sentBytes: number; ms: number };
  /** True when only the objects the query sets read were stored (putSiteObjects), not the whole site. */
  readSetOnly?: boolean;
  /** Passes over every query set (objects and bytes from the first, latency from all). */
  passes: number;
  sets: ColdS3Reads[];
}

/** Options of measureColdReadsS3. */
export interface ColdS3Options {
  /** Passes over the query sets for the latency samples (default 1). */
  passes?: number;
  points?: readonly QueryPoint[];
  onProgress?: (line: string) => void;
  /** Store only the objects the query sets read from the folder (a site too large to publish whole). */
  readSetOnly?: boolean;
}

interface QuerySample {
  query: string;
  reads: StoreRead[];
  rounds: string[][];
  refused: boolean;
  wireBytes: number;
  decodedBytes: number;
  ms: number;
}

/** Publish `siteDir` to a fresh s3rver on 127.0.0.1 and measure the cold query sets of coldQuerySets over S3Store. */
export async function measureColdReadsS3(
  siteDir: string,
  radii: readonly number[],
  options: ColdS3Options = {},
): Promise<ColdS3Report> {
  const passes = options.passes ?? 1;
  const say = options.onProgress ?? (() => undefined);
  const sets = await answerableSets(
    resolve(siteDir),
    coldQuerySets(radii, options.points ?? allMetroPoints(), metroZips(resolve(siteDir))),
  );
  const server = await startS3rver({ buckets: ['site'] });
  try {
    let publish: ColdS3Report['publish'];
    if (options.readSetOnly === true) {
      const read = new Set<string>();
      for (const set of sets)
        for (const q of set.queries) {
          // Through the round gate as below, so the reads an answer does not wait for are stored too.
          const rounds = new RoundStore(new FolderStore(resolve(siteDir)));
          const folder = new CountingStore(rounds);
          await askCold(createService(createSiteSource(folder)), q.args);
          await rounds.settled();
          // A range request stores its whole pack.
          for (const r of folder.reads) if (r.found) read.add(r.key.replace(/#\d+-\d+$/, ''));
        }
      say(`  storing the ${read.size} objects the query sets read (of the whole site) in s3rver`);
      const put = await putSiteObjects(
        { bucket: 'site', siteDir: resolve(siteDir), gzip: true, ...server.clientOptions },
        [...read],
      );
      publish = {
        objects: put.uploaded,
        gzipped: put.gzipped,
        rawBytes: put.rawBytes,
        sentBytes: put.sentBytes,
        ms: put.ms,
      };
    } else {
      const published = await publishSite({
        bucket: 'site',
        siteDir: resolve(siteDir),
        gzip: true,
        ...server.clientOptions,
        log: (l) => say(`  [${l}]`),
      });
      publish = {
        objects: published.uploaded,
        gzipped: published.gzipped,
        rawBytes: published.uploadedRawBytes,
        sentBytes: published.uploadedSentBytes,
        ms: published.ms,
      };
    }
    const storeOptions = { bucket: 'site', ...server.clientOptions };
    const runQuery = async (q: ColdQuery): Promise<QuerySample> => {
      let wireBytes = 0;
      let decodedBytes = 0;
      const rounds = new RoundStore(
        new S3Store({
          ...storeOptions,
          onRead: (_key, wire, decoded) => {
            wireBytes += wire;
            decodedBytes += decoded;
          },
        }),
      );
      const store = new CountingStore(rounds);
      const t0 = performance.now();
      const asked = await askCold(createService(createSiteSource(store)), q.args);
      const ms = performance.now() - t0;
      // The rounds the answer waited for; the reads are all those it started, counted once they have settled.
      const waited = rounds.rounds.slice();
      await rounds.settled();
      // The hook and the decorator see the same reads: a mismatch would make the two byte columns incomparable.
      if (decodedBytes !== store.bytes)
        throw new Error(
          `S3Store onRead saw ${decodedBytes} decoded bytes, the counting store ${store.bytes} (${q.name})`,
        );
      return {
        query: q.name,
        reads: store.reads.slice(),
        rounds: waited,
        refused: asked === 'refused',
        wireBytes,
        decodedBytes,
        ms,
      };
    };

    // Untimed: opens the keep-alive connection and warms the code paths, so the first timed query is not a TCP connect.
    const first = sets[0]?.queries[0];
    if (first) await runQuery(first);
    const samples = sets.map(() => [] as QuerySample[][]);
    for (let pass = 0; pass < passes; pass++) {
      for (const [i, set] of sets.entries()) {
        const run: QuerySample[] = [];
        for (const q of set.queries) run.push(await runQuery(q));
        samples[i]?.push(run);
        say(
          `  S3 pass ${pass + 1}/${passes}, ${set.label}: cold query median ${median(run.map((s) => s.ms)).toFixed(1)} ms`,
        );
      }
    }

    const out: ColdS3Reads[] = sets.map((set, i) => {
      const runs = samples[i] ?? [];
      const firstRun = runs[0] ?? [];
      const wire = firstRun.map((s) => s.wireBytes);
      const ms = runs.flat().map((s) => s.ms);
      const worstWire = firstRun.reduce<QuerySample | null>(
        (a, b) => (a === null || b.wireBytes > a.wireBytes ? b : a),
        null,
      );
      return {
        ...summariseCold(set.label, firstRun),
        wireBytes: { median: median(wire), max: Math.max(...wire) },
        worstWire: worstWire
          ? {
              query: worstWire.query,
              objects: worstWire.reads.length,
              wireBytes: worstWire.wireBytes,
              decodedBytes: worstWire.decodedBytes,
            }
          : { query: '', objects: 0, wireBytes: 0, decodedBytes: 0 },
        latencyMs: { median: median(ms), p99: quantile(ms, 0.99), max: Math.max(...ms), samples: ms.length },
      };
    });
    return {
      server: 's3rver 3 in the benchmark process, 127.0.0.1 (loopback)',
      publish,
      readSetOnly: options.readSetOnly === true,
      passes,
      sets: out,
    };
  } finally {
    await server.stop();
  }
}
