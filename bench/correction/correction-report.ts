/** The correction section of BENCHMARKS.md and its rows of the Targets table. */
import type { CorrectionResults, CorrectionRun, PublishCost } from './correction.ts';
import { fmtBytes } from '../lib/stats.ts';

/** Targets of a one-listing correction at the largest size measured. */
export const CORRECTION_TARGETS = { maxObjects: 100, maxSeconds: 60, offices: 1_000_000 } as const;

const n0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const secs = (s: number | null): string => (s === null ? '–' : `${s.toFixed(2)} s`);
const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;

function kinds(c: PublishCost): string {
  return Object.entries(c.byKind)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** Target rows (name, ok, measured, note) for the Targets table. */
export function correctionTargetRows(
  r: CorrectionResults | undefined,
): { name: string; ok: boolean; measured: string; note: string }[] {
  const big = r?.runs.find((x) => x.offices >= CORRECTION_TARGETS.offices);
  if (!r || !big) return [];
  const c = big.correction;
  return [
    {
      name: `one-listing correction at ${n0(CORRECTION_TARGETS.offices)} offices writes < ${CORRECTION_TARGETS.maxObjects} objects, copies none`,
      ok: c.objectsWritten < CORRECTION_TARGETS.maxObjects && c.copies === 0,
      measured: `${n0(c.objectsWritten)} objects written (${fmtBytes(c.sentBytes)} sent), ${c.copies} copies`,
      note: '',
    },
    {
      name: `one-listing correction at ${n0(CORRECTION_TARGETS.offices)} offices: pointer flipped < ${CORRECTION_TARGETS.maxSeconds} s`,
      ok: c.pointerSeconds !== null && c.pointerSeconds < CORRECTION_TARGETS.maxSeconds,
      measured: `${secs(c.pointerSeconds)} (s3rver on loopback)`,
      note: '',
    },
  ];
}

function runRows(x: CorrectionRun): string[] {
  const c = x.correction;
  const rows = [
    row([
      n0(x.offices),
      `correction (${c.mode})`,
      n0(c.objectsWritten),
      String(c.copies),
      `${fmtBytes(c.rawBytes)} / ${fmtBytes(c.sentBytes)}`,
      secs(c.pointerSeconds),
      `${n0(c.layerEntries)} entries${c.metaBytes === null ? '' : `, meta.json ${fmtBytes(c.metaBytes)}`}`,
    ]),
  ];
  if (x.full) {
    const f = x.full;
    rows.push(
      row([
        n0(x.offices),
        `weekly (${f.mode})`,
        n0(f.objectsWritten),
        String(f.copies),
        `${fmtBytes(f.rawBytes)} / ${fmtBytes(f.sentBytes)}`,
        secs(f.pointerSeconds),
        '–',
      ]),
    );
  } else if (x.fullPlanned) {
    rows.push(
      row([
        n0(x.offices),
        'weekly (complete, planned by a dry run; not uploaded)',
        n0(x.fullPlanned.objects),
        '0',
        `${fmtBytes(x.fullPlanned.rawBytes)} / –`,
        'not measured',
        '–',
      ]),
    );
  }
  return rows;
}

/** `## 7. Correction publish`. */
export function correctionSection(r: CorrectionResults | undefined): string {
  const out = ['## 7. Correction publish', ''];
  if (!r) return [...out, 'Skipped.'].join('\n');
  out.push(
    'A one-listing correction: the first place of the week gets a new phone number in `corrections.jsonl`, the week is generated again into its own folder, ' +
      'and `publishSite` (generator/publish/publish.ts) publishes it to s3rver on 127.0.0.1 (gzip on, 32 requests in flight) over the week it corrects, which the bucket serves. ' +
      'It goes up as a *layer*: only new or changed objects under its own prefix, and a map in its meta.json naming where each other object is. ' +
      "*Objects written* are the PUT requests the server received (objects, the layer's meta.json or a complete version's manifest.json, the pointer); *copies* the server-side copies it received. " +
      'Bytes are raw / as sent (gzip). *To pointer* is from the start of publishSite (reading the bucket and the local manifest included) to the pointer write. ' +
      'The weekly row is the complete publish of the week itself into an empty bucket.',
    '',
    row(['Offices', 'Publish', 'Objects written', 'Copies', 'Bytes (raw / sent)', 'To pointer', 'Layer map']),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---']),
    ...r.runs.flatMap(runRows),
    '',
  );
  for (const x of r.runs) {
    out.push(
      `- ${n0(x.offices)} offices: week \`${x.baseVersion}\` -> correction \`${x.correctionVersion}\` (${n0(x.objects)} objects in the version; listing ${x.correctedListing}, served phone after the flip: ${x.servedPhone ?? 'none'}). ` +
        `Written by kind: ${kinds(x.correction)}.` +
        (x.base === 'seeded'
          ? " The week was put in the bucket as its meta.json, manifest.json and pointer only (all the correction's plan reads); uploading its objects to s3rver would take most of an hour on this machine, so the weekly row is the dry-run plan, not a timed upload."
          : '') +
        (x.generate
          ? ` Generating the corrected week took ${(x.generate.wallMs / 1000).toFixed(1)} s (the generator rebuilds the whole week; only the publish is incremental).`
          : ' The corrected week was generated by an earlier run (same corrections, same base version) and reused.'),
    );
  }
  for (const e of r.errors) out.push(`- Failed: ${e}`);
  return out.join('\n');
}
