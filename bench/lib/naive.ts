/**
 * The naive baseline: every office loaded into memory once, and each query scans all of them (haversine each, nearest
 * office per firm, sort by distance then listing_id, limit). Written independently of shim/search/search.ts so it can
 * also serve as a brute-force check of the shim's answers.
 */
import { decodeStored } from '../../shim/format/site-json.ts';
import { EARTH_RADIUS_MILES } from '../../shim/contract/constants.ts';
import type { SiteReader } from '../../shim/search/reader.ts';
import { coveredSearch } from '../../shim/search/search.ts';
import type { Service } from '../../shim/answer/service.ts';
import { createService } from '../../shim/answer/service-impl.ts';
import { z } from 'zod';
import { CellGroup, CellIndex } from '../../shim/format/cell-format.ts';
import { keys, Pointer, StoredOffice, type StoredOfficeT } from '../../shim/format/site-format.ts';
import type { Store } from '../../shim/store/types.ts';

const RAD = Math.PI / 180;

/** One firm by its nearest office, as the naive scan finds it. */
export interface NaiveHit {
  office: StoredOfficeT;
  distanceMiles: number;
  officesWithinRadius: number;
}

/** Every office of one site version, in columns for the scan; full records kept as JSON text to bound memory. */
export class NaiveIndex {
  readonly version: string;
  private readonly lat: Float64Array;
  private readonly lng: Float64Array;
  private readonly firm: Int32Array;
  private readonly ids: string[];
  private readonly records: string[];
  private constructor(
    version: string,
    lat: Float64Array,
    lng: Float64Array,
    firm: Int32Array,
    ids: string[],
    records: string[],
  ) {
    this.version = version;
    this.lat = lat;
    this.lng = lng;
    this.firm = firm;
    this.ids = ids;
    this.records = records;
  }

  /** Number of offices held. */
  get size(): number {
    return this.ids.length;
  }

  /** Load every office of the current version from its record chunks (cells/records/: each office is in exactly one). */
  static async load(store: Store, onProgress?: (done: number, total: number) => void): Promise<NaiveIndex> {
    const text = async (key: string): Promise<unknown> => {
      const bytes = await store.get(key);
      if (bytes === null) throw new Error(`naive baseline: ${key} is missing`);
      return decodeStored(bytes, key);
    };
    const { version } = Pointer.parse(await text(keys.pointer));
    const index = CellIndex.parse(await text(keys.cellIndex(version)));
    const total = index.offices;
    const lat = new Float64Array(total);
    const lng = new Float64Array(total);
    const firm = new Int32Array(total);
    const ids: string[] = [];
    const records: string[] = [];
    const firmNo = new Map<string, number>();
    const groups = Object.keys(index.groups).sort();
    for (const cell of groups) {
      const group = CellGroup.parse(await text(keys.cellGroup(version, cell, index.schema_version)));
      for (const [i, block] of group.rows.cell.entries()) {
        if (group.rows.block[i] !== i) continue;
        for (let k = 0; k * index.record_chunk < (group.rows.n[i] ?? 0); k++) {
          // Record validation is the shim's job; the baseline only needs the fields it scans, checked per office below.
          const chunk = z
            .array(StoredOffice)
            .parse(((await text(keys.cellRecords(version, block, k))) as { offices: unknown }).offices);
          for (const office of chunk) {
            const n = ids.length;
            lat[n] = office.lat;
            lng[n] = office.lng;
            let f = firmNo.get(office.firm_id);
            if (f === undefined) {
              f = firmNo.size;
              firmNo.set(office.firm_id, f);
            }
            firm[n] = f;
            ids.push(office.listing_id);
            records.push(JSON.stringify(office));
          }
        }
      }
      if (onProgress) onProgress(ids.length, total);
    }
    if (ids.length !== total)
      throw new Error(`naive baseline: the cell index counts ${total} offices, the record chunks hold ${ids.length}`);
    return new NaiveIndex(version, lat, lng, firm, ids, records);
  }

  /** Firms with an office within `radiusMiles` of (lat, lng): nearest office each, ordered by distance then listing_id. */
  query(lat: number, lng: number, radiusMiles: number, limit: number): { firmsWithinRadius: number; hits: NaiveHit[] } {
    const best = new Map<number, { i: number; d: number; n: number }>();
    const cosLat = Math.cos(lat * RAD);
    for (let i = 0; i < this.ids.length; i++) {
      const oLat = this.lat[i] as number;
      const dLat = (oLat - lat) * RAD;
      const dLng = ((this.lng[i] as number) - lng) * RAD;
      const a = Math.sin(dLat / 2) ** 2 + cosLat * Math.cos(oLat * RAD) * Math.sin(dLng / 2) ** 2;
      const d = 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
      if (d > radiusMiles) continue;
      const f = this.firm[i] as number;
      const prev = best.get(f);
      if (prev === undefined) best.set(f, { i, d, n: 1 });
      else {
        prev.n++;
        if (d < prev.d || (d === prev.d && (this.ids[i] as string) < (this.ids[prev.i] as string))) {
          prev.i = i;
          prev.d = d;
        }
      }
    }
    const ordered = [...best.values()].sort(
      (x, y) => x.d - y.d || ((this.ids[x.i] as string) < (this.ids[y.i] as string) ? -1 : 1),
    );
    const hits = ordered.slice(0, limit).map((h) => ({
      office: StoredOffice.parse(JSON.parse(this.records[h.i] as string)),
      distanceMiles: h.d,
      officesWithinRadius: h.n,
    }));
    return { firmsWithinRadius: ordered.length, hits };
  }
}

/**
 * A Service whose attorney search is the naive scan; everything else (parsing, location resolution, coverage lookup,
 * shaping, firm/coverage documents) is the real code, so in an HTTP comparison only the search differs.
 */
export function naiveService(index: NaiveIndex, source: { current(): Promise<SiteReader> }): Service {
  return createService(source, {
    search: coveredSearch(async (reader, lat, lng, radiusMiles, limit) => {
      if (reader.version !== index.version)
        throw new Error(`naive baseline holds ${index.version}, the site serves ${reader.version}`);
      const found = index.query(lat, lng, radiusMiles, limit);
      return { firms: found.firmsWithinRadius, hits: found.hits };
    }),
  });
}
