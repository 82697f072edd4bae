/**
 * The check of a group's pack of blocks (cells/packs/<group>.bin) against the hashes its group tree records, made by
 * audit's scan and by the public route that serves it.
 */
import { createHash } from 'node:crypto';

/**
 * Problems of the pack at `key` (its bytes, null when missing): it must be exactly the group's blocks, in the order and
 * at the lengths the cell index gives (`blocks`, `lengths`), each slice of the sha256 the group tree records for it.
 */
export function packProblems(
  key: string,
  bytes: Uint8Array | null,
  blocks: readonly string[],
  lengths: readonly number[],
  blockSha256: Readonly<Record<string, string>>,
): string[] {
  if (bytes === null) return [`${key}: the cell index gives its blocks' lengths but it is missing`];
  if (lengths.length !== blocks.length)
    return [`${key}: the cell index gives ${lengths.length} lengths for ${blocks.length} blocks`];
  const total = lengths.reduce((n, l) => n + l, 0);
  if (total !== bytes.byteLength)
    return [`${key}: ${bytes.byteLength} bytes, the cell index's lengths sum to ${total}`];
  const problems: string[] = [];
  let at = 0;
  blocks.forEach((cell, k) => {
    const end = at + (lengths[k] ?? 0);
    const got = createHash('sha256').update(bytes.subarray(at, end)).digest('hex');
    if (got !== blockSha256[cell])
      problems.push(`${key}: bytes ${at}-${end - 1} are not block ${cell} as its group records it`);
    at = end;
  });
  return problems;
}
