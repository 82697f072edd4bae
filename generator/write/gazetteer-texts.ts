/**
 * The gazetteer's documents serialised once, by key. A run holds them until they are written, after the cell tree and
 * the firm packs: as text they are a few thousand flat strings, where as parsed objects they were about 100 MB of small
 * objects that every full collection of a national run's heap marked again.
 */
import { paths } from '../../shim/format/paths.ts';
import { BOUNDARY_TILES, type BoundaryTilesT, type ZipGazetteerT } from '../../shim/format/site-format.ts';
import { merkleLeaf, merkleTree, provenRel, withProof } from '../../shim/format/proofs.ts';
import { buildBoundaryTiles } from '../model/boundary-tiles.ts';
import type { buildGazetteer } from '../model/gazetteer.ts';

/** The keys of the gazetteer's documents, as meta.json names them (each list in the gazetteer's own order). */
export interface GazetteerContents {
  zip3: string[];
  cityBuckets: Map<string, string[]>;
  names: string[];
  points: string[];
  boundary: string[];
  /** The boundary tiles' size and box (gazetteer/tiles/). */
  boundaryTiles: BoundaryTilesT;
  /** The root of the proofs the documents hashed in hashes/ carry (shim/format/proofs.ts). */
  gazetteerRoot: string;
}

/** Every gazetteer document as [key relative to the version root, JSON text] in write order, and what else a run needs. */
export interface GazetteerTexts {
  texts: [string, string][];
  /** ZIP documents by ZIP3 (the release gates read the centroids). */
  zips: ReadonlyMap<string, ZipGazetteerT>;
  contents: GazetteerContents;
}

/**
 * `texts` with each document that carries a proof (provenRel) stored with it, and the root: leaves in key order, each
 * over the document's bytes as written without a proof (its text and the newline every object ends with).
 */
export function provenTexts(texts: readonly [string, string][]): { texts: [string, string][]; root: string } {
  const proven = texts
    .map(([rel], i) => [rel, i] as const)
    .filter(([rel]) => provenRel(rel))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const { root, proofs } = merkleTree(
    proven.map(([rel, i]) => merkleLeaf(rel, Buffer.from(`${(texts[i] as [string, string])[1]}\n`))),
  );
  const out = texts.map(([rel, text]): [string, string] => [rel, text]);
  proven.forEach(([rel, i], k) => {
    out[i] = [rel, withProof((texts[i] as [string, string])[1], proofs[k] as string)];
  });
  return { texts: out, root };
}

/** Serialise `g`'s documents: ZIP documents by ZIP3, cities by state, then names, points, boundaries and their tiles. */
export function gazetteerTexts(g: ReturnType<typeof buildGazetteer>): GazetteerTexts {
  const texts: [string, string][] = [];
  const add = (rel: string, doc: unknown): void => void texts.push([rel, JSON.stringify(doc)]);
  for (const zip3 of [...g.zips.keys()].sort()) add(paths.zip(zip3), g.zips.get(zip3));
  for (const [st, buckets] of [...g.cities].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    for (const [b, doc] of buckets) add(paths.city(st, b), doc);
  }
  for (const [prefix, doc] of g.names) add(paths.names(prefix), doc);
  for (const [tile, doc] of g.points) add(paths.points(tile), doc);
  add(paths.boundaryIndex(), g.boundary.index);
  for (const [key, doc] of g.boundary.regions) add(paths.boundary(key), doc);
  for (const [tile, doc] of buildBoundaryTiles(g.boundary.index, g.boundary.regions, BOUNDARY_TILES))
    add(paths.boundaryTile(tile), doc);
  const proven = provenTexts(texts);
  return {
    texts: proven.texts,
    zips: g.zips,
    contents: {
      zip3: [...g.zips.keys()],
      cityBuckets: new Map([...g.cities].map(([st, bs]) => [st, [...bs.keys()]])),
      names: [...g.names.keys()],
      points: [...g.points.keys()],
      boundary: [...g.boundary.regions.keys()],
      boundaryTiles: BOUNDARY_TILES,
      gazetteerRoot: proven.root,
    },
  };
}
