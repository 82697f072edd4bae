/** A search answer's JSON text and bytes from its offices' cached text are JSON.stringify's, byte for byte, on the sample site. */
import { describe, expect, it } from 'vitest';
import { answerBytes, answerJson } from '../shim/answer/answer-json.ts';
import type { AttorneysResponseT } from '../shim/contract/schemas.ts';
import { createService } from '../shim/answer/service-impl.ts';
import { createSiteSource } from '../shim/search/site-reader.ts';
import { FolderStore } from '../shim/store/folder.ts';
import { densePoints, pointArgs } from '../bench/lib/points.ts';
import { rng } from './helpers/rng.ts';

const SITE = process.env.TEST_SITE_DIR;
if (SITE === undefined) throw new Error('TEST_SITE_DIR is not set (test/global-setup.ts sets it)');

describe('answerJson', () => {
  it('is JSON.stringify of every answer: points, radii, limits, ZIPs, cities, uncovered, two base URLs', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    const random = rng(12);
    const queries: Record<string, string>[] = [];
    for (const p of densePoints())
      for (const radius of [1, 15, 50]) queries.push(pointArgs(p, radius, 1 + Math.floor(random() * 25)));
    for (let i = 0; i < 60; i++) {
      const p = densePoints()[i % 15];
      if (p === undefined) continue;
      queries.push(pointArgs({ lat: p.lat + (random() - 0.5) / 10, lng: p.lng + (random() - 0.5) / 10 }, 15, 10));
    }
    queries.push(
      { zip: '60601', radius_miles: '10' },
      { zip: '10001', radius_miles: '5', limit: '25' },
      { location: 'Los Angeles, CA', radius_miles: '5' },
      { location: 'Chicago', radius_miles: '25' },
      { lat: '39.5', lng: '-116.5', radius_miles: '50' },
    );
    let results = 0;
    for (const base of ['https://directory.example', 'http://127.0.0.1:8787/']) {
      for (const args of queries) {
        // Twice: the second answer is written from the offices' cached text.
        for (let k = 0; k < 2; k++) {
          const body = await service.findAttorneys(args, { publicBaseUrl: base });
          expect(answerJson(body)).toBe(JSON.stringify(body));
          expect(answerBytes(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
          results += body.results.length;
        }
      }
    }
    expect(results).toBeGreaterThan(1000);
  });

  it('writes results it did not register, and a body without results, as JSON.stringify does', async () => {
    const service = createService(createSiteSource(new FolderStore(SITE)));
    const body = await service.findAttorneys(
      { zip: '60601', radius_miles: '10' },
      { publicBaseUrl: 'https://a.example' },
    );
    const copy = JSON.parse(JSON.stringify(body)) as AttorneysResponseT;
    expect(answerJson(copy)).toBe(JSON.stringify(copy));
    expect(answerBytes(copy).equals(Buffer.from(JSON.stringify(copy)))).toBe(true);
    const none = { ...copy, results: [] };
    expect(answerJson(none)).toBe(JSON.stringify(none));
    expect(answerBytes(none).equals(Buffer.from(JSON.stringify(none)))).toBe(true);
  });
});
