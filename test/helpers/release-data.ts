/** Small edits and reads of a copied fixture and its site folder, for the release suites. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keys, Pointer } from '../../shim/format/site-format.ts';

const PLACES = ['weeks', '2026-W47', 'places.jsonl'];

/** Set p1's phone in a data copy: each phone is another version of the same week. */
export async function setPhone(data: string, phone: string): Promise<void> {
  const file = join(data, ...PLACES);
  const rows = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const out = rows.map((l) => {
    const p = JSON.parse(l) as Record<string, unknown>;
    return JSON.stringify(p.place_id === 'p1' ? { ...p, phone } : p);
  });
  await writeFile(file, `${out.join('\n')}\n`);
}

/** The version a site folder's current.json names. */
export const liveOf = async (site: string): Promise<string> =>
  Pointer.parse(JSON.parse(await readFile(join(site, keys.pointer), 'utf8'))).version;
