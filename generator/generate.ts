/** The generator: one week of inputs (plus corrections) -> a complete, versioned, deterministic site folder. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keys, LISTING_ALPHABET } from '../shim/format/site-format.ts';
import { isCellPack, paths } from '../shim/format/paths.ts';
import { SCHEMA_VERSIONS } from '../shim/contract/constants.ts';
import type { StoredOfficeT } from '../shim/format/site-format.ts';
import type { CellIndexT } from '../shim/format/cell-format.ts';
import { buildOpenApi } from './openapi/openapi.ts';
import { applyCorrections } from './model/corrections.ts';
import type { Corrected } from './model/corrections.ts';
import type { MetroT, PlaceRecordT, RemovalRecordT } from './inputs/schema.ts';
import { ActiveRemovals, describeRemoval, HELD_FILE, holdRemovedPlaces, identityOfPlace } from './model/removals.ts';
import type { RemovalsDocT, ZipGazetteerT } from '../shim/format/site-format.ts';
import { buildCoverage } from './model/coverage.ts';
import type { CoverageMap } from './model/coverage.ts';
import {
  coverageCellsDoc,
  coveragePieceDocs,
  coverageDoc,
  listingBuckets,
  listingPrefixLength,
  manifestBytes,
  metaDoc,
  hashDocs,
  namedByMetaHashes,
  pointerDoc,
  sortedKeys,
  totalsOf,
} from './write/documents.ts';
import { groupFirms } from './model/firms.ts';
import { buildGazetteer } from './model/gazetteer.ts';
import { gazetteerTexts, type GazetteerTexts } from './write/gazetteer-texts.ts';
import type { BadRow } from './inputs/jsonl.ts';
import { placeIdsOf } from './inputs/place-ids.ts';
import { latestWeek, readInputs } from './inputs/read.ts';
import { collectExamples } from './openapi/openapi-examples.ts';
import { serialise, serialiseAt } from './write/json.ts';
import { StagingStore } from './write/staging-store.ts';
import type { Inputs } from './inputs/read.ts';
import { buildOffices } from './model/offices.ts';
import type { BuiltFirm } from './model/offices.ts';
import { buildPages, pageMeasurement } from './pages/write-pages.ts';
import type { PageDocT } from '../shim/format/page-format.ts';
import { buildCells } from './write/cells.ts';
import { firmPackPieces } from './write/firm-packs.ts';
import { groupObjects, sealGroups, sealIndex, type HashOf } from './write/cell-hashes.ts';
import type { SiteLocation } from './site/site.ts';
import { changesAgainstLive } from './site/changes-previous.ts';
import { provenanceOf, type Provenance } from './model/changes.ts';
import { measurementDocs } from './write/measurement-docs.ts';
import { chooseVersionId, versionBasis } from './site/version-basis.ts';
import { measureVisibility } from './model/visibility.ts';
import type { Visibility } from './model/visibility.ts';
import { mondayOfIsoWeek } from './inputs/week.ts';
import { beginRun, currentVersion, endRun, installVersion, pruneVersions } from './write/site-folder.ts';
import type { Retention } from './write/site-folder.ts';
import { checkStoredOffices } from './model/stored-office-check.ts';
import { StagingWriter } from './write/write.ts';
import { collectDropped } from './write/heap.ts';
import type { Entry } from './write/written.ts';

/** Options of one generator run. */
export interface GenerateOptions {
  /** Folder holding metros.json, weeks/<week>/ and optionally corrections.jsonl. */
  dataDir: string;
  /** Site folder: <outDir>/current.json and <outDir>/v/<version>/ (see site-folder.ts). */
  outDir: string;
  /** How long replaced versions stay, and how many are kept for rollback. */
  retention?: Retention;
  /** Called with the week's facts before anything is written; a throw stops the run with nothing written (release gates). */
  gate?: (facts: WeekFacts) => void | Promise<void>;
  /** The site whose live version the changes document compares against (default: outDir; release: the bucket). */
  previous?: SiteLocation;
  /**
   * The version live on `previous` when the release began (null: none), which the changes document compares with and the
   * version id covers; default: the version live there when the run reads it. Generate never moves a pointer: only
   * release does, and only if this is still the live version then.
   */
  base?: string | null;
  /** ISO week, e.g. 2026-W47; defaults to the latest folder in <dataDir>/weeks/. */
  week?: string;
  /** Leave out bad rows (each is listed) instead of failing. */
  skipBad?: boolean;
  /**
   * Never reproduce the live version's id: the output is a new version over it (its changes document compares with
   * it). For publishing this generator's output of inputs whose live version another generator wrote (ChangedVersionError).
   */
  newVersion?: boolean;
  /** No progress lines. Skipped rows are listed even when quiet. */
  quiet?: boolean;
  /** Where progress and skipped rows go, one line per call; default stderr. */
  log?: (line: string) => void;
}

/** What a run published. */
export interface GenerateResult {
  version: string;
  week: string;
  /** Objects written under v/<version>/, meta and manifest included (no pointer: generate never writes one). */
  objects: number;
  /** Their total size in bytes. */
  bytes: number;
  /** Rows left out under skipBad. */
  skipped: BadRow[];
  /** The version its changes document compares with: live when it was first made (null: the first version). */
  previousVersion: string | null;
  /** Old versions deleted after their grace period. */
  pruned: string[];
}

/** What the release gates look at, computed by the run before it writes. */
export interface WeekFacts {
  week: string;
  metros: readonly MetroT[];
  /** Rows read (before corrections). */
  places: number;
  samples: number;
  samplesByMetro: ReadonlyMap<string, number>;
  /** Each metro's grid points and samples (grid points x queries) this week, as its coverage document will say. */
  metroSampling: ReadonlyMap<string, { gridPoints: number; samples: number }>;
  firms: number;
  offices: readonly StoredOfficeT[];
  /** Place ids whose claimed status is unknown after corrections. */
  unclaimed: readonly string[];
  unknownCorrections: Corrected['unknown'];
  /** sha256 of the corrections.jsonl bytes applied (read once, with the rows). */
  correctionsSha256: string;
  /** Place id -> the standing removal that kept it out this week. */
  standingRemovals: ReadonlyMap<string, string>;
  /** Gazetteer ZIP documents by ZIP3 (centroids). */
  zips: ReadonlyMap<string, ZipGazetteerT>;
  /** The operator's place_id of each listing id given (read again from places.jsonl: for messages only). */
  placeIdsOf?: (listingIds: Iterable<string>) => ReadonlyMap<string, string>;
}

/** The inputs have bad rows and skipBad is off: nothing was written. */
export class BadInputError extends Error {
  readonly rows: BadRow[];
  constructor(rows: BadRow[]) {
    super(`${rows.length} bad input row(s); nothing was written (use --skip-bad to leave them out)`);
    this.rows = rows;
    this.name = 'BadInputError';
  }
}

/** `file:line: reason`, as the CLI prints bad rows. */
export function formatBadRow(row: BadRow): string {
  return `${row.file}:${row.line}: ${row.reason}`;
}

// The gazetteer depends only on installed packages, so one build serves every run in a process.
let gazetteerCache: GazetteerTexts | undefined;

/**
 * `<week>-<first 10 hex of sha256 over the sorted "relative key TAB sha256" lines of the content objects>`, followed by
 * a line `meta TAB <meta.json schema>` (a version of another meta schema is another version, even with the same
 * content: versions are immutable) and a line `previous TAB <version>` when a version was live before (its changes
 * document depends on it).
 */
export function versionId(
  week: string,
  entries: ReadonlyMap<string, Entry>,
  sorted: readonly string[] = sortedKeys(entries),
  previous: string | null = null,
): string {
  const h = createHash('sha256');
  for (const k of sorted) h.update(`${k}\t${(entries.get(k) as Entry).sha256}\n`);
  h.update(`meta\t${SCHEMA_VERSIONS.meta}\n`);
  if (previous !== null) h.update(`previous\t${previous}\n`);
  return `${week}-${h.digest('hex').slice(0, 10)}`;
}

/** The version a written changes document compares with (null: the first version). */
async function readChangesPrevious(path: string): Promise<string | null> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as { previous?: { version?: string } | null };
  return doc.previous?.version ?? null;
}

/** A written version would get other bytes: versions are immutable, so the run is refused. */
export class ChangedVersionError extends Error {
  override name = 'ChangedVersionError';
}

/**
 * The objects two manifests of one version list with other bytes (or list only one of them), relative to the
 * version's folder, sorted; at most `max` and how many more.
 */
export function differingObjects(a: Uint8Array, b: Uint8Array, max = 5): string {
  const objects = (bytes: Uint8Array): Record<string, { sha256: string }> =>
    (JSON.parse(Buffer.from(bytes).toString('utf8')) as { objects: Record<string, { sha256: string }> }).objects;
  const x = objects(a);
  const y = objects(b);
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])]
    .filter((k) => x[k]?.sha256 !== y[k]?.sha256)
    .map((k) => k.replace(/^v\/[^/]+\//, ''))
    .sort();
  const more = keys.length > max ? ` and ${keys.length - max} more` : '';
  return `${keys.slice(0, max).join(', ')}${more}`;
}

/**
 * Throw ChangedVersionError when `<site>/v/<version>/` already holds a manifest other than `manifest`, saying what
 * differs and what the operator can do: the same inputs give the same id (the id covers the content objects, the
 * meta.json schema and the version compared with, not the generator's code), so this is a generator that writes
 * meta.json, changes.json, openapi.json or hashes/ otherwise, most often after a code upgrade.
 */
async function refuseChangedVersion(
  site: string,
  version: string,
  manifest: Uint8Array,
  { week, live }: { week: string; live: string | null },
): Promise<void> {
  let existing: Buffer;
  try {
    existing = await readFile(join(site, keys.manifest(version)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!existing.equals(Buffer.from(manifest))) {
    const what =
      version === live
        ? `${version} is live with these inputs: to keep it, there is nothing to do (it stays as it is); to publish this generator's output instead, run npm run release -- --week ${week} --new-version, which makes it a new version over ${version}`
        : `${version} is not live: if it was never published (npm run release or npm run publish), remove ${join(site, keys.root(version))} and run again; a version already in a bucket cannot change: leave it, and this output goes out once the inputs change (a correction, a removal, the next week), which gives another id`;
    throw new ChangedVersionError(
      `version ${version} is already in ${site} with other bytes (${differingObjects(existing, manifest)}): the same inputs give the same version id, but this generator writes those objects otherwise (was it upgraded since ${version} was made?); published versions are immutable, so nothing was written. ${what}`,
    );
  }
}

/** What the write phase needs; the input rows, firms' place records and visibility maps are left behind for the GC. */
interface Model {
  inputs: Pick<Inputs, 'week' | 'metros' | 'dataset' | 'bad'>;
  /** removals.json's list: each standing removal's target hashed (ActiveRemovals.keys). */
  removalKeys: string[];
  facts: Omit<WeekFacts, 'zips' | 'offices'>;
  /** Emptied once the firm packs and coverage.json are written (the firms are garbage from then on). */
  built: BuiltFirm[];
  offices: StoredOfficeT[];
  coverage: CoverageMap;
  vis: Pick<Visibility, 'metros'>;
  /** The pages for people by page name, built while the firm lookup they need is at hand. */
  pages: Map<string, PageDocT>;
  /** The published measurement, one document per metro. */
  measurement: ReturnType<typeof measurementDocs>;
  /** Which corrections and removals acted on which listings, for the changes document. */
  provenance: Provenance;
}

// A function of its own so that everything it does not return can be collected before the write phase (at a million
// offices the place records, firm groups and visibility maps are about a gigabyte of heap).
async function buildModel(
  opts: GenerateOptions,
  week: string,
  log: (line: string) => void,
  step: (msg: string) => void,
): Promise<Model> {
  const inputs = await readInputs(opts.dataDir, week);
  if (inputs.bad.length > 0) {
    if (!opts.skipBad) throw new BadInputError(inputs.bad);
    for (const row of inputs.bad) log(`skipped ${formatBadRow(row)}`);
  }
  step(
    `${inputs.places.length} places, ${inputs.samples.length} samples, ${inputs.flags.length} flags, ${inputs.corrections.length} corrections`,
  );

  const placeRows = inputs.places.length;
  const corrected = applyCorrections(
    inputs.places.map((r) => r.value),
    inputs.corrections,
  );
  // From here on the place records are held by `places` and, once grouped, by their firms only, so buildOffices can let
  // them go one firm at a time (at a million offices, records and rows are a good part of the peak heap).
  inputs.places = [];
  const removals = new ActiveRemovals(inputs.removals);
  const heldByPlace = await holdRemovedPlaces(opts.dataDir, removals);
  if (heldByPlace > 0)
    step(`${heldByPlace} place(s) a standing removal matched or held in a week (${HELD_FILE}) held out by place`);
  const places: PlaceRecordT[] = [];
  const standing = new Map<string, string>();
  const standingRows = new Map<string, RemovalRecordT>();
  for (const p of corrected.places) {
    // Without standing removals nothing can match: skip hashing a million identities.
    const m = removals.count === 0 ? undefined : removals.match(identityOfPlace(p));
    if (m === undefined) places.push(p);
    else {
      standing.set(p.place_id, describeRemoval(m));
      // Shown even when quiet: the operator should see an office held out that no removal names by its own ids.
      const removed = removals.sameOfficeAs.get(p.place_id);
      if (removed !== undefined)
        log(
          `held out as the same office as removed listing ${removed}: ${p.name}, ${p.street_address}, ${p.city}, ${p.state} (place ${p.place_id}, ${describeRemoval(m)})`,
        );
      standingRows.set(p.place_id, m.value);
    }
  }
  corrected.places = [];
  const provenance = provenanceOf(inputs.corrections, corrected, standingRows, inputs.removals);
  const unclaimed = places.filter((p) => p.claimed === null).map((p) => p.place_id);
  const { firms, notes: firmNotes } = groupFirms(places, inputs.flags);
  places.length = 0;
  inputs.flags = [];
  step(`phase: ${firms.length} firms grouped`);
  const coverage = buildCoverage(inputs.metros);
  const vis = measureVisibility(
    inputs.metros,
    inputs.samples.map((r) => r.value),
    firms,
    coverage,
  );
  step('phase: visibility measured');
  const measured = pageMeasurement(
    inputs.metros,
    inputs.samples.map((r) => r.value),
    firms,
  );
  const measurement = measurementDocs(
    inputs.metros,
    inputs.samples.map((r) => r.value),
    firms,
    week,
  );
  step('phase: page and published measurement computed');
  const built = buildOffices(firms, vis, { release: true });
  // Each office's measurement is in its stored office now: the map by place id (a million entries) is let go before the
  // pages are built, the step at which the week's model is largest.
  vis.office.clear();
  vis.brand.clear();
  // The maps just cleared and the garbage of building the offices are let go here, not at the next collection V8
  // picks: that one came in the middle of building the pages, with the heap grown 40% past the live size it found
  // before the offices were built, and was the first week's peak once the cell tree's was gone.
  collectDropped();
  const offices = built.flatMap((b) => b.offices);
  checkStoredOffices(offices);
  step('phase: stored offices built and checked');
  // Built here, not when written: the firm lookup of the measurement (a million place ids) is garbage once they are.
  const pages = await buildPages({
    dataDir: opts.dataDir,
    week,
    weekOf: mondayOfIsoWeek(week),
    synthetic: inputs.dataset.synthetic,
    metros: inputs.metros,
    offices,
    measurement: measured,
  });
  for (const note of [...inputs.notes, ...corrected.notes, ...firmNotes]) step(`note: ${note}`);
  if (vis.unlistedRanked > 0)
    step(
      `note: ${vis.unlistedRanked} ranked entries are not offices in the directory; they keep their rank and are not measured`,
    );
  step(
    `${firms.length} firms, ${offices.length} offices (${corrected.removed.size} removed, ${corrected.updated.size} updated by corrections, ${standing.size} kept out by ${removals.count} standing removals), ${coverage.size} coverage cells`,
  );
  const { metros, dataset, bad } = inputs;
  const samplesByMetro = new Map<string, number>();
  for (const r of inputs.samples) samplesByMetro.set(r.value.metro, (samplesByMetro.get(r.value.metro) ?? 0) + 1);
  const facts = {
    week,
    metros,
    places: placeRows,
    samples: inputs.samples.length,
    samplesByMetro,
    metroSampling: new Map(
      [...vis.metros].map(([slug, st]) => [slug, { gridPoints: st.gridPoints, samples: st.samples }] as const),
    ),
    firms: firms.length,
    unclaimed,
    standingRemovals: standing,
    unknownCorrections: corrected.unknown,
    correctionsSha256: inputs.correctionsSha256,
    placeIdsOf: (ids: Iterable<string>) => placeIdsOf(join(opts.dataDir, 'weeks', week, 'places.jsonl'), ids),
  };
  return {
    inputs: { week, metros, dataset, bad },
    removalKeys: removals.keys,
    facts,
    built,
    offices,
    coverage,
    vis: { metros: vis.metros },
    pages,
    measurement,
    provenance,
  };
}

/** The sha256 of an object `w` wrote, known once `w` is flushed. */
function writtenHash(w: StagingWriter, rel: string): string {
  const entry = w.entries.get(rel);
  if (entry === undefined) throw new Error(`${rel} was not written`);
  return entry.sha256;
}

/** The cell tree of `offices`, built and written; a function of its own so the tree is garbage once written. */
async function writeCellTree(
  w: StagingWriter,
  offices: readonly StoredOfficeT[],
  step: (msg: string) => void,
): Promise<CellIndexT> {
  const tree = buildCells(offices);
  step('phase: cell tree built');
  // Children before parents: each level records the sha256 the workers computed for the level below (cell-hashes.ts).
  const written: HashOf = (rel) => writtenHash(w, rel);
  // Blocks, group trees and shared pages are Protocol Buffers, record chunks JSON: serialiseAt codes each by its key.
  // One group at a time: its record chunks, blocks, shared pages and pack (which holds them all once more, so a cold
  // search reads several with one range request) are written before the next group is serialised.
  const as = { block: serialiseAt, shared: serialiseAt, records: serialiseAt };
  for (const { objects } of groupObjects(tree, as))
    for (const [rel, bytes] of objects) {
      const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      // A pack is megabytes: handed to a writer whole rather than copied into a batch.
      await (isCellPack(rel) ? w.putOwned(rel, data) : w.put(rel, data));
    }
  await w.flush();
  sealGroups(tree, written);
  for (const g of tree.groups) {
    const rel = paths.cellGroup(g.cell, g.schema_version);
    await w.put(rel, serialiseAt(rel, g));
  }
  await w.flush();
  sealIndex(tree, written);
  await w.put(paths.cellIndex(), tree.index);
  step(
    `cell tree written: ${Object.keys(tree.index.groups).length} groups, ${tree.blocks.length} blocks, ${tree.records.length} record chunks`,
  );
  return tree.index;
}

/** What writeContent needs besides the model. */
interface WriteContext {
  opts: GenerateOptions;
  /** The run's staging folder of the version's objects. */
  objectsDir: string;
  week: string;
  weekOf: string;
  gazetteer: GazetteerTexts;
  step: (msg: string) => void;
}

/** Every object of the version but the manifest, through `w`; resolves with the version id and the content keys sorted. */
async function writeContent(
  w: StagingWriter,
  model: Model,
  { opts, objectsDir, week, weekOf, gazetteer, step }: WriteContext,
): Promise<{ version: string; sorted: string[]; live: string | null }> {
  const { inputs, offices, coverage, vis, measurement, provenance } = model;
  // The pages first, so that their documents (tens of MB at a million offices) are garbage before the firm packs and
  // the cell tree, the steps at which memory peaks.
  for (const [name, page] of model.pages) await w.put(paths.page(name), page);
  step(`${model.pages.size} pages and page assets written`);
  model.pages = new Map();
  const prefixLength = listingPrefixLength(offices.length);
  let packs = 0;
  for (const pack of firmPackPieces(model.built, prefixLength)) {
    await w.putPieces(paths.firmPack(pack.prefix), pack.pieces, pack.bytes);
    packs++;
  }
  // A bucket records its firm packs' sha256, so the packs are hashed first.
  await w.flush();
  for (const bucket of listingBuckets(
    offices.map((o) => o.listing_id),
    prefixLength,
    (prefix) => writtenHash(w, paths.firmPack(prefix)),
  ))
    await w.put(paths.listings(bucket.prefix), bucket);
  step(
    `${offices.length} firm documents in ${packs} firm packs and ${LISTING_ALPHABET.length ** prefixLength} listing buckets written (waited ${(w.waitedMs / 1000).toFixed(1)} s for the file writes so far)`,
  );
  await w.put(paths.coverage(), coverageDoc(model.built, inputs.metros, vis, inputs.dataset, weekOf));
  const removalsDoc: RemovalsDocT = {
    schema_version: SCHEMA_VERSIONS.removals,
    generated: 'by generator/; do not edit',
    removals: model.removalKeys,
  };
  await w.put(paths.removals(), removalsDoc);
  const totals = totalsOf(model.built, inputs.metros);
  model.built = [];
  // The firms and the firm packs' office texts are garbage now (about a third of the heap at a million offices), so
  // the cell tree, built next, is built beside the offices only: built before the packs, it was both weeks' peak.
  collectDropped();
  const cellIndex = await writeCellTree(w, offices, step);
  // The cell tree (blocks, shared lists, record chunks) is garbage now; the changes diff reads the previous version.
  collectDropped();
  const coverageCells = coverageCellsDoc(coverage);
  await w.put(paths.coverageCells(), coverageCells);
  for (const [rel, piece] of coveragePieceDocs(coverageCells)) await w.put(rel, piece);
  for (const doc of measurement) await w.put(paths.measurement(doc.metro), doc);
  for (const [rel, text] of gazetteer.texts) await w.putJson(rel, text);
  await w.flush();

  const sorted = sortedKeys(w.entries);
  const target = opts.previous ?? { kind: 'folder' as const, dir: opts.outDir };
  // The changes document depends on the version live before, so the id covers it too: the same content released over
  // another live version is another version, and no byte of a written version ever changes.
  const basis = await versionBasis(target, opts.base);
  const { version } = chooseVersionId(
    basis,
    (previous) => versionId(week, w.entries, sorted, previous),
    opts.newVersion === true,
  );
  const changes = await changesAgainstLive(target, version, week, offices, provenance, step, opts.base);
  await w.put(paths.changes(), changes);
  step(
    `changes since ${changes.previous?.version ?? '(first version)'}: ${changes.counts.added} added, ${changes.counts.removed} removed, ${changes.counts.changed} changed`,
  );
  await w.flush();
  // Everything read by name is written by now but openapi.json, whose hash meta.json records itself.
  for (const [path, doc] of hashDocs(w.entries)) await w.put(path, doc);
  await w.flush();
  const contents = {
    ...gazetteer.contents,
    listingPrefixLength: prefixLength,
    sha256: namedByMetaHashes(w.entries),
    cellIndex,
  };
  const meta = () => metaDoc(version, week, weekOf, inputs.dataset, totals, vis, contents);
  // openapi.json shows answers of this very version (standing removals applied): read through a store over the staging
  // folder with a meta.json that does not name openapi.json yet; the final meta.json, written next, names it.
  const staged = new StagingStore(objectsDir, version, serialise(pointerDoc(version, week)), serialise(meta()));
  const cities = inputs.metros.map((m) => m.principal_cities[0] ?? '').filter((c) => c !== '');
  await w.put(paths.openapi(), buildOpenApi(await collectExamples(staged, cities), inputs.dataset));
  await w.flush();
  contents.sha256 = namedByMetaHashes(w.entries);
  step('openapi.json written, its examples answered by this version');
  await w.put(paths.meta(), meta());
  return { version, sorted, live: basis.live };
}

/** Read, validate, compute and write one week as a new version, not live. Rejects with BadInputError or InputError before writing anything. */
export async function generate(opts: GenerateOptions): Promise<GenerateResult> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const step = (msg: string): void => {
    if (!opts.quiet)
      log(
        `generate [${((performance.now() - t0) / 1000).toFixed(1)}s ${Math.round(process.memoryUsage.rss() / 1e6)}MB peak ${Math.round((process.resourceUsage().maxRSS * 1024) / 1e6)}MB] ${msg}`,
      );
  };

  const week = opts.week ?? (await latestWeek(opts.dataDir));
  step(`reading ${join(opts.dataDir, 'weeks', week)}`);
  // Built before the week's model, not after: building it briefly takes about 200 MB of heap, which on top of a million
  // offices was the first week's peak.
  gazetteerCache ??= gazetteerTexts(buildGazetteer());
  const gazetteer = gazetteerCache;
  // A variable of its own, emptied once the content is written, so that the offices, firms and cell tree are garbage
  // before the manifest of a million entries is built (at a million offices they are about a gigabyte of heap).
  let model: Model | undefined = await buildModel(opts, week, log, step);
  // The place records, firm groups and visibility maps are garbage now (about 40% of the heap at a million offices).
  collectDropped();
  const { inputs, facts } = model;
  const weekOf = mondayOfIsoWeek(week);

  const { cityBuckets } = gazetteer.contents;
  step(
    `gazetteer: ${gazetteer.zips.size} ZIP3 files, ${[...cityBuckets.values()].reduce((n, b) => n + b.length, 0)} city files in ${cityBuckets.size} states`,
  );
  if (opts.gate !== undefined) await opts.gate({ ...facts, offices: model.offices, zips: gazetteer.zips });

  const { run, leftovers } = await beginRun(opts.outDir);
  for (const path of leftovers) step(`removed the leftovers of an interrupted run: ${path}`);
  const current = await currentVersion(run.site);
  const w = new StagingWriter(run.objects, current === null ? null : join(run.site, keys.root(current)));
  try {
    const { version, sorted, live } = await writeContent(w, model, {
      opts,
      objectsDir: run.objects,
      week,
      weekOf,
      gazetteer,
      step,
    });
    model = undefined;
    await w.flush();
    // The keys written after the version id (changes, meta) added to the sorted content keys: the sort finds the sorted
    // run and merges them in, instead of comparing a million keys again.
    const all = [...sorted, ...[...w.entries.keys()].slice(sorted.length)].sort();
    const manifest = manifestBytes(version, w.entries, all, keys.root(version));
    // Before putOwned, which hands the bytes to the writer.
    await refuseChangedVersion(opts.outDir, version, manifest, { week, live });
    await w.putOwned(paths.manifest(), manifest);
    await w.flush();
    if (w.linked > 0) step(`${w.linked} unchanged object(s) cloned (copy-on-write) from the current version's files`);
    const how = await installVersion(run, version, w.entries.keys());
    step(
      how === 'new'
        ? `version ${version} in place`
        : `version ${version} was already in place; its objects were refreshed`,
    );
    // Never the pointer: only release moves it (after the gates, the removals and the verify step).
    const changes = await readChangesPrevious(join(opts.outDir, keys.changes(version)));
    const pruned = await pruneVersions(run, opts.retention, [version]);
    if (pruned.length > 0) step(`removed old version(s) past their grace period: ${pruned.join(', ')}`);
    await endRun(run);

    let bytes = 0;
    for (const e of w.entries.values()) bytes += e.bytes;
    const objects = w.entries.size;
    step(
      `wrote ${version} to ${opts.outDir}: ${objects} objects, ${(bytes / 1e6).toFixed(1)} MB; not live (npm run release makes a version live)`,
    );
    return {
      version,
      week,
      objects,
      bytes,
      skipped: opts.skipBad ? inputs.bad : [],
      previousVersion: changes,
      pruned,
    };
  } catch (err) {
    // Writes still queued would recreate folders in the run's folder after it is removed.
    await w.settle();
    await endRun(run);
    throw err;
  } finally {
    await w.close();
  }
}
