/**
 * Gazetteer documents that carry their own proof (docs/SITE-FORMAT.md, "Integrity"): one Merkle tree per version over
 * every gazetteer document whose sha256 is in a `hashes/` document, its root in meta.json `gazetteer_root`, and each
 * such document stored as `{"merkle":"<proof>",` followed by its own bytes after their opening `{`. A search checks the
 * document against the root it already holds, so it reads no `hashes/` document beside it: one object, not two.
 *
 * The tree: leaf = sha256(0x00, key relative to the version root, 0x00, the document's bytes without the proof), so a
 * proof binds the bytes to their key; node = sha256(0x01, left, right); leaves in key order, padded with
 * sha256(0x02) to a power of two. The proof: the leaf's position in decimal, `:`, then the siblings from the leaf up,
 * 64 hex digits each.
 */
import { createHash } from 'node:crypto';
import { StoreError } from '../contract/errors.ts';
import { hashDocOf } from './hash-docs.ts';

/** What a proven document's stored bytes start with. */
const OPEN = '{"merkle":"';
const OPEN_BYTES = new TextEncoder().encode(OPEN);
const QUOTE = 0x22;
const COMMA = 0x2c;
const BRACE = 0x7b;

/** True for the documents a version with `gazetteer_root` stores with a proof: gazetteer documents hashed in hashes/. */
export function provenRel(rel: string): boolean {
  return rel.startsWith('gazetteer/') && hashDocOf(rel) !== null;
}

/** The leaf of document `rel` whose bytes (without a proof) are `content`. */
export function merkleLeaf(rel: string, content: Uint8Array): Buffer {
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(rel)
    .update(Buffer.from([0]))
    .update(content)
    .digest();
}

/** The parent of two nodes. */
export function merkleNode(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256')
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();
}

/** The leaf that pads a tree to a power of two. */
export const MERKLE_PAD = createHash('sha256')
  .update(Buffer.from([2]))
  .digest();

/** The root of `leaves` and each leaf's proof (as stored after `"merkle":"`), in the leaves' order. */
export function merkleTree(leaves: readonly Uint8Array[]): { root: string; proofs: string[] } {
  let width = 1;
  while (width < leaves.length) width *= 2;
  let level: Uint8Array[] = [...leaves];
  while (level.length < width) level.push(MERKLE_PAD);
  const siblings: string[][] = leaves.map(() => []);
  for (let span = 1; level.length > 1; span *= 2) {
    for (let i = 0; i < leaves.length; i++) {
      const at = Math.floor(i / span);
      siblings[i]?.push(Buffer.from(level[at ^ 1] as Uint8Array).toString('hex'));
    }
    const up: Uint8Array[] = [];
    for (let j = 0; j < level.length; j += 2) up.push(merkleNode(level[j] as Uint8Array, level[j + 1] as Uint8Array));
    level = up;
  }
  const root = Buffer.from(level[0] ?? MERKLE_PAD).toString('hex');
  return { root, proofs: siblings.map((s, i) => `${i}:${s.join('')}`) };
}

/** `text` (a JSON object's text, without the trailing newline) stored with `proof`. */
export function withProof(text: string, proof: string): string {
  if (!text.startsWith('{"'))
    throw new Error(`a proven document must be a JSON object with a member: ${text.slice(0, 40)}`);
  return `${OPEN}${proof}",${text.slice(1)}`;
}

/**
 * The bytes of proven document `rel` (stored at `key`) without its proof, once the proof leads from them to `root`;
 * a StoreError (503) otherwise, as for bytes that do not match a recorded sha256.
 */
export function openProven(key: string, rel: string, stored: Uint8Array, root: string): Uint8Array {
  const fail = (why: string): never => {
    throw new StoreError(`${key} ${why}`, key);
  };
  if (stored.length < OPEN_BYTES.length || OPEN_BYTES.some((b, i) => stored[i] !== b))
    fail('does not start with its proof');
  const end = stored.indexOf(QUOTE, OPEN_BYTES.length);
  if (end < 0 || stored[end + 1] !== COMMA) fail('has no end to its proof');
  const proof = new TextDecoder().decode(stored.subarray(OPEN_BYTES.length, end));
  const m = /^(0|[1-9]\d{0,8}):((?:[0-9a-f]{64}){0,32})$/.exec(proof);
  if (m === null) fail('has a proof of the wrong form');
  const at = Number(m?.[1]);
  const siblings = m?.[2] ?? '';
  const depth = siblings.length / 64;
  if (at >= 2 ** depth) fail(`has a proof for position ${at} of a tree of depth ${depth}`);
  // The document's own bytes: its opening brace, then everything after the proof's comma.
  const content = new Uint8Array(stored.length - (end + 1));
  content[0] = BRACE;
  content.set(stored.subarray(end + 2), 1);
  let h: Uint8Array = merkleLeaf(rel, content);
  for (let k = 0; k < depth; k++) {
    const sib = Buffer.from(siblings.slice(k * 64, k * 64 + 64), 'hex');
    h = ((at >> k) & 1) === 1 ? merkleNode(sib, h) : merkleNode(h, sib);
  }
  if (Buffer.from(h).toString('hex') !== root) fail("does not lead by its proof to the version's gazetteer_root");
  return content;
}
