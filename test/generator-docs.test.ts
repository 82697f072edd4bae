/** The generator's fast document bytes equal the plain serialisation of the same documents (every firm of the sample, the manifest). */
import { describe, expect, it } from 'vitest';
import { manifestBytes, manifestDoc, sortedKeys } from '../generator/write/documents.ts';
import { firmDocPieces, firmDocs, firmPackPieces } from '../generator/write/firm-packs.ts';
import type { BuiltFirm } from '../generator/model/offices.ts';
import type { Entry } from '../generator/write/written.ts';
import { FirmPack, LISTING_ALPHABET, type StoredOfficeT } from '../shim/format/site-format.ts';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import { sampleFirms } from './helpers/sample-offices.ts';

/** Each document's pieces joined, as the writer writes them (without the trailing newline); its stated byte length checked. */
const texts = (b: BuiltFirm): { listingId: string; json: string }[] =>
  [...firmDocPieces(b)].map((d) => {
    const json = d.pieces.join('');
    expect(d.bytes).toBe(Buffer.byteLength(json, 'utf8'));
    return { listingId: d.listingId, json };
  });

describe('firmDocPieces', () => {
  it('gives, for every firm of the sample, exactly JSON.stringify of each of its firm documents', async () => {
    const { inputs, firms: built } = await sampleFirms();
    let docs = 0;
    let multi = 0;
    for (const b of built) {
      const expected = firmDocs(b).map((d) => ({ listingId: d.listing_id, json: JSON.stringify(d) }));
      expect(texts(b)).toEqual(expected);
      docs += expected.length;
      if (b.offices.length > 2) multi++;
    }
    expect(docs).toBe(inputs.places.length);
    expect(multi).toBeGreaterThan(10);
  });

  it('escapes names and addresses the same way (quotes, backslashes, non-ASCII, control characters)', () => {
    const office: StoredOfficeT = {
      listing_id: 'l_aaaaaaaaaaaaaaaa',
      firm_id: 'f_aaaaaaaaaaaaaaaa',
      name: 'O\'Brien "Injury" Law \\ Ñandú 🚗 \u2028\u0007',
      address: '1 Main St',
      city: 'Zürich',
      state: 'NY',
      zip: null,
      lat: 40.5,
      lng: -74.25,
      phone: null,
      website_url: null,
      website_domain: null,
      primary_category: null,
      google_listing_claimed: true,
      hours: null,
      metro: null,
      visibility: null,
      brand: null,
      profile_type: 'standard',
      sponsored: false,
    };
    const b: BuiltFirm = {
      firm: {
        key: 'k',
        firmId: office.firm_id,
        name: office.name,
        websiteUrl: null,
        domain: null,
        profileType: 'standard',
        sponsored: false,
      },
      offices: [office, { ...office, listing_id: 'l_bbbbbbbbbbbbbbbb', name: 'Ünïcode "two"' }],
      mainBrand: { metro: 'new-york', top3_share_pct: 1.5, appears_share_pct: 20, offices_measured: 2 },
    };
    expect(texts(b)).toEqual(firmDocs(b).map((d) => ({ listingId: d.listing_id, json: JSON.stringify(d) })));
  });
});

describe('firmPackPieces', () => {
  it('gives every pack of the sample, empty ones too, as exactly JSON.stringify of its documents sorted by listing_id', async () => {
    const { inputs, firms: built } = await sampleFirms();
    const length = 1;
    // Independent answer: every firm document, grouped by the first two characters after "l_", sorted by listing_id.
    const docs = built.flatMap((b) => firmDocs(b)).sort((a, b) => (a.listing_id < b.listing_id ? -1 : 1));
    const packs = [...firmPackPieces(built, length)];
    expect(packs.map((p) => p.prefix)).toEqual(
      [...LISTING_ALPHABET].flatMap((a) => [...LISTING_ALPHABET].map((b) => a + b)),
    );
    let documents = 0;
    for (const p of packs) {
      const json = p.pieces.join('');
      expect(p.bytes, p.prefix).toBe(Buffer.byteLength(json, 'utf8'));
      const want = {
        schema_version: SCHEMA_VERSIONS.firm,
        prefix: p.prefix,
        documents: docs.filter((d) => d.listing_id.slice(2, 4) === p.prefix),
      };
      expect(json, p.prefix).toBe(JSON.stringify(want));
      expect(FirmPack.parse(JSON.parse(json)).documents.length).toBe(p.documents);
      documents += p.documents;
    }
    expect(documents).toBe(inputs.places.length);
  });

  it('writes a pack with no listing as an empty list of documents', () => {
    const packs = [...firmPackPieces([], 0)];
    expect(packs.map((p) => p.prefix).join('')).toBe(LISTING_ALPHABET);
    for (const p of packs) {
      const json = p.pieces.join('');
      expect(json).toBe(JSON.stringify({ schema_version: SCHEMA_VERSIONS.firm, prefix: p.prefix, documents: [] }));
      expect(p.bytes).toBe(json.length);
    }
  });
});

describe('manifestBytes', () => {
  it('is exactly JSON.stringify of the manifest object, keys sorted by full key', () => {
    const entries = new Map<string, Entry>([
      ['firms/l_b.json', { sha256: 'b'.repeat(64), bytes: 2 }],
      ['cells/index.json', { sha256: 'c'.repeat(64), bytes: 30 }],
      ['firms/l_a.json', { sha256: 'a'.repeat(64), bytes: 1 }],
      ['pages/metros/zürich "x".json', { sha256: 'd'.repeat(64), bytes: 4 }],
      ['10.json', { sha256: 'e'.repeat(64), bytes: 5 }],
    ]);
    const prefix = 'v/2026-W47-0123456789/';
    const text = manifestBytes('2026-W47-0123456789', entries, sortedKeys(entries), prefix).toString('utf8');
    expect(text).toBe(`${JSON.stringify(manifestDoc('2026-W47-0123456789', entries, (r) => prefix + r))}\n`);
    expect(Object.keys((JSON.parse(text) as { objects: object }).objects)).toEqual(
      [...entries.keys()].map((k) => prefix + k).sort(),
    );
  });
});
