/**
 * The gazetteer documents' proofs (shim/format/proofs.ts), brute force over trees of 1 to 40 documents: every proof
 * leads to its root, and none does once its bytes, its key, its position or a sibling is changed, or it is cut short.
 */
import { describe, expect, it } from 'vitest';
import { StoreError } from '../shim/contract/errors.ts';
import { merkleLeaf, merkleTree, openProven, withProof } from '../shim/format/proofs.ts';
import { provenTexts } from '../generator/write/gazetteer-texts.ts';
import { checkManifest } from '../generator/audit/manifest.ts';
import { openSite } from '../generator/site/site.ts';

const enc = new TextEncoder();
const doc = (i: number): [string, string] => [
  `gazetteer/zip/${String(i).padStart(3, '0')}.json`,
  `{"schema_version":1,"n":${i}}`,
];
const stored = (text: string): Uint8Array => enc.encode(`${text}\n`);

describe('gazetteer proofs', () => {
  it('every proof opens to the document as written without it, for 1 to 40 documents', () => {
    for (let n = 1; n <= 40; n++) {
      const docs = Array.from({ length: n }, (_, i) => doc(i));
      const { texts, root } = provenTexts(docs);
      texts.forEach(([rel, text], i) => {
        expect(openProven(rel, rel, stored(text), root)).toEqual(stored((docs[i] as [string, string])[1]));
      });
    }
  });

  it('refuses changed bytes, another key, another position, a changed sibling and a short proof', () => {
    const docs = Array.from({ length: 13 }, (_, i) => doc(i));
    const { texts, root } = provenTexts(docs);
    const [rel, text] = texts[5] as [string, string];
    const refused = (r: string, t: string): void => expect(() => openProven(r, r, stored(t), root)).toThrow(StoreError);
    refused(rel, text.replace('"n":5', '"n":6'));
    refused((docs[6] as [string, string])[0], text);
    refused(rel, text.replace('{"merkle":"5:', '{"merkle":"4:'));
    refused(
      rel,
      text.replace(/:([0-9a-f])/, (_, c: string) => `:${c === '0' ? '1' : '0'}`),
    );
    refused(rel, text.replace(/[0-9a-f]{64}",/, '",'));
    refused(rel, (docs[5] as [string, string])[1]);
  });

  it('leaves the documents that carry no proof as they were, and builds the root from the proven ones in key order', () => {
    const docs: [string, string][] = [doc(2), ['gazetteer/boundary/index.json', '{"a":1}'], doc(1)];
    const { texts, root } = provenTexts(docs);
    expect(texts[1]).toEqual(docs[1]);
    const sorted = [doc(1), doc(2)].map(([r, t]) => merkleLeaf(r, stored(t)));
    expect(root).toBe(merkleTree(sorted).root);
    expect(texts[0]?.[1]).toBe(withProof(doc(2)[1], merkleTree(sorted).proofs[1] as string));
  });

  it('audit verify finds every published proof leading to the root, and names the documents when the root is not theirs', async () => {
    const site = await openSite({ kind: 'folder', dir: process.env.TEST_SITE_DIR as string });
    expect((await checkManifest(site)).problems).toEqual([]);
    const other = { ...site, meta: { ...site.meta, gazetteer_root: '0'.repeat(64) } };
    const problems = (await checkManifest(other)).problems;
    expect(problems.length).toBeGreaterThan(100);
    expect(
      problems.every((p) => /gazetteer\/.* does not lead by its proof to the version's gazetteer_root$/.test(p)),
    ).toBe(true);
  });
});
