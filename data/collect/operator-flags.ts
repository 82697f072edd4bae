/**
 * The operator's flags file (input of the collector): firm lines, copied into the week's flags.jsonl, and listing
 * lines giving each office's claimed status, which Places API (New) does not report.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { normaliseFlagKey } from '../../generator/inputs/ids.ts';
import { FlagRecord, type FlagRecordT } from '../../generator/inputs/schema.ts';

/** A listing line: whether the owner has claimed the web-map listing of `place_id`. */
export const ClaimRecord = z.object({ place_id: z.string().min(1), claimed: z.boolean() });

/** The parsed operator flags: per firm key and per place id. */
export interface OperatorFlags {
  firms: Map<string, FlagRecordT>;
  claimed: Map<string, boolean>;
}

/** Parses the operator's flags file (JSON lines, each a firm line or a listing line). */
export function parseOperatorFlags(text: string, source: string): OperatorFlags {
  const firms = new Map<string, FlagRecordT>();
  const claimed = new Map<string, boolean>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${source} line ${i + 1}: not JSON`);
    }
    const claim = ClaimRecord.safeParse(json);
    if (claim.success) {
      claimed.set(claim.data.place_id, claim.data.claimed);
      return;
    }
    const firm = FlagRecord.safeParse(json);
    if (!firm.success)
      throw new Error(
        `${source} line ${i + 1}: expected {"firm","profile_type","sponsored"} or {"place_id","claimed"}`,
      );
    firms.set(normaliseFlagKey(firm.data.firm), firm.data);
  });
  return { firms, claimed };
}

/** Reads the operator's flags file; no file means no flags. */
export function readOperatorFlags(path: string | null): OperatorFlags {
  if (path === null) return { firms: new Map(), claimed: new Map() };
  return parseOperatorFlags(readFileSync(path, 'utf8'), path);
}
