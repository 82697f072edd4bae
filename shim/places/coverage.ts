/** Which measured metro a point is in (docs/CONTRACT.md, Coverage): the point's H3 cell at the coverage resolution, looked up. Pure. */
import { cellToParent, getResolution, latLngToCell } from 'h3-js';
import type { CoverageCellsT, MetaT } from '../format/site-format.ts';
import { COVERAGE_PIECE_RES, COVERAGE_RESOLUTION } from '../contract/constants.ts';
import { paths } from '../format/paths.ts';

/** Slug of the first (nearest-centre) metro measuring the point's cell, or null when no metro covers it. Degrees in. */
export function metroForPoint(cells: CoverageCellsT, lat: number, lng: number): string | null {
  return cells.cells[latLngToCell(lat, lng, cells.res)]?.[0] ?? null;
}

/** The coverage piece (coverage-cells/<cell>.json, relative to the version root) holding coverage cell `cell`. */
export function coveragePieceOfCell(cell: string, pieceRes = COVERAGE_PIECE_RES): string {
  return paths.coveragePiece(cellToParent(cell, pieceRes));
}

/** The coverage piece (relative to the version root) holding (lat, lng), at the given resolutions. */
export function coveragePieceOf(
  lat: number,
  lng: number,
  res = COVERAGE_RESOLUTION,
  pieceRes = COVERAGE_PIECE_RES,
): string {
  return coveragePieceOfCell(latLngToCell(lat, lng, res), pieceRes);
}

/** The resolution of the coverage pieces meta.json records, or null when it records none (a version written before them). */
const pieceResOf = new WeakMap<MetaT, number | null>();
function pieceRes(meta: MetaT): number | null {
  let res = pieceResOf.get(meta);
  if (res !== undefined) return res;
  const piece = Object.keys(meta.sha256 ?? {}).find((rel) => rel.startsWith('coverage-cells/'));
  res = piece === undefined ? null : getResolution(piece.slice('coverage-cells/'.length, -'.json'.length));
  pieceResOf.set(meta, res);
  return res;
}

/**
 * Where a version keeps the coverage of (lat, lng): the relative path of its piece; null when it has pieces but none
 * there (no metro measures the point); undefined when it has none (read coverage-cells.json whole).
 */
export function coveragePiece(meta: MetaT, lat: number, lng: number): string | null | undefined {
  const res = pieceRes(meta);
  if (res === null) return undefined;
  const rel = coveragePieceOf(lat, lng, meta.coverage_resolution, res);
  return meta.sha256?.[rel] === undefined ? null : rel;
}
