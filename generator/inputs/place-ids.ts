/**
 * From listing ids back to the operator's place ids, for messages: the generator keeps no map of them (at a million
 * offices it would be about 100 MB of heap), so a message that needs a few reads places.jsonl again, hashing each
 * place_id, and stops once it has found them all. Synchronous, because the gates are; only a failed gate calls it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { listingIdOf } from './ids.ts';

const PLACE_ID = /"place_id"\s*:\s*("(?:[^"\\]|\\.)*")/;

/** The place_id of each of `listingIds` found in the JSON lines file `path` (missing ones are left out). */
export function placeIdsOf(path: string, listingIds: Iterable<string>): Map<string, string> {
  const wanted = new Set(listingIds);
  const found = new Map<string, string>();
  if (wanted.size === 0) return found;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return found;
  }
  try {
    const chunk = Buffer.alloc(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    const line = (text: string): void => {
      const m = PLACE_ID.exec(text)?.[1];
      if (m === undefined) return;
      let placeId: unknown;
      try {
        placeId = JSON.parse(m);
      } catch {
        return;
      }
      if (typeof placeId !== 'string') return;
      const id = listingIdOf(placeId);
      if (wanted.has(id)) found.set(id, placeId);
    };
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      const lines = (rest + decoder.write(chunk.subarray(0, n))).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) line(l);
      if (found.size === wanted.size) return found;
    }
    line(rest + decoder.end());
    return found;
  } finally {
    closeSync(fd);
  }
}
