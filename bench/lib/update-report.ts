/**
 * `npm run bench -- --only <sections> --update`: splice the sections one partial run measured into the committed
 * BENCHMARKS.md, leaving every other section (and its figures) as the last run that measured it wrote them.
 * Pure text in, text out: the report is split into `## ` blocks, blocks are matched by their heading line, and the
 * Targets table and its notes are matched row by row on the target's name (and rebuilt, each row and note once).
 */

/** One `## ` block of a report: its heading line and everything up to the next heading. */
interface Block {
  heading: string;
  body: string;
}

const FIXED = new Set(['## Machine', '## Targets', '## Method']);
const UPDATES_MARK = 'Sections updated since by partial runs:';

function splitBlocks(report: string): { head: string; blocks: Block[] } {
  const parts = report.split(/^(?=## )/m);
  const head = parts[0]?.startsWith('## ') ? '' : (parts.shift() ?? '');
  const blocks = parts.map((part) => {
    const newline = part.indexOf('\n');
    return newline === -1
      ? { heading: part.trimEnd(), body: '' }
      : { heading: part.slice(0, newline).trimEnd(), body: part.slice(newline + 1) };
  });
  return { head, blocks };
}

function joinBlocks(head: string, blocks: readonly Block[]): string {
  return head + blocks.map((b) => `${b.heading}\n${b.body}`).join('');
}

/** Whether a rendered block holds figures (a section this run did not measure renders as "Skipped..."). */
function measured(block: Block): boolean {
  return !FIXED.has(block.heading) && !/^\s*Skipped\b/.test(block.body);
}

const rowName = (line: string): string | null =>
  line.startsWith('| ') && !line.startsWith('| Target |') && !line.startsWith('|---')
    ? (line.split(' | ')[0] ?? '').slice(2)
    : null;
const noteName = (line: string): string | null => /^- \*(.+?)\*: /.exec(line)?.[1] ?? null;

/** A Targets block taken apart: the table's header lines, its rows and the notes, each by target name, and any other line. */
interface TargetsParts {
  header: string[];
  rows: Map<string, string>;
  notes: Map<string, string>;
  other: string[];
}

/** Split a Targets body; a row or note repeated (a merge of two branches can leave copies) is kept once, the first. */
function targetsParts(body: string): TargetsParts {
  const parts: TargetsParts = { header: [], rows: new Map(), notes: new Map(), other: [] };
  for (const line of body.split('\n')) {
    const row = rowName(line);
    const note = noteName(line);
    if (row !== null) {
      if (!parts.rows.has(row)) parts.rows.set(row, line);
    } else if (note !== null) {
      if (!parts.notes.has(note)) parts.notes.set(note, line);
    } else if (line.startsWith('| Target |') || line.startsWith('|---')) {
      if (!parts.header.includes(line)) parts.header.push(line);
    } else if (line.trim() !== '') parts.other.push(line);
  }
  return parts;
}

/**
 * The Targets block with the rows of the targets the partial run measured replacing (or joining) the existing ones of
 * the same name, and their notes replacing every existing note of that name (a target measured without a note loses
 * its old one). Every other row and note is kept once. Rebuilt as the report renders it: the table, then the notes in
 * the order of its rows (a note whose row is gone last).
 */
function mergeTargets(existing: Block, partial: Block): Block {
  const old = targetsParts(existing.body);
  const next = targetsParts(partial.body);
  // A target the partial run did not measure keeps the committed row and note.
  const measuredNames = [...next.rows].filter(([, line]) => !line.includes(' | not measured | ')).map(([n]) => n);
  const rows = new Map(old.rows);
  const notes = new Map(old.notes);
  for (const name of measuredNames) {
    rows.set(name, next.rows.get(name) as string);
    notes.delete(name);
    const note = next.notes.get(name);
    if (note !== undefined) notes.set(name, note);
  }
  const ordered = [
    ...[...rows.keys()].flatMap((n) => notes.get(n) ?? []),
    ...[...notes].filter(([n]) => !rows.has(n)).map(([, line]) => line),
  ];
  const header = old.header.length > 0 ? old.header : next.header;
  const lines = ['', ...header, ...rows.values(), ''];
  if (old.other.length > 0) lines.push(...old.other, '');
  if (ordered.length > 0) lines.push(...ordered, '');
  return { heading: existing.heading, body: `${lines.join('\n')}\n` };
}

/**
 * `existing` (the committed report) with every section `partial` measured put in its place (a new section goes
 * before Method), the Targets rows of those sections merged, and a line naming the partial run (`command`, `when`).
 * Returns the new report and the headings it replaced or added.
 */
export function updateReport(
  existing: string,
  partial: string,
  command: string,
  when: string,
): { report: string; sections: string[] } {
  const old = splitBlocks(existing);
  const next = splitBlocks(partial);
  const blocks = [...old.blocks];
  const sections: string[] = [];
  for (const block of next.blocks) {
    if (block.heading === '## Targets') continue;
    if (!measured(block)) continue;
    sections.push(block.heading);
    const at = blocks.findIndex((b) => b.heading === block.heading);
    if (at !== -1) {
      blocks[at] = { heading: block.heading, body: ensureGap(block.body) };
      continue;
    }
    const method = blocks.findIndex((b) => b.heading === '## Method');
    blocks.splice(method === -1 ? blocks.length : method, 0, { heading: block.heading, body: ensureGap(block.body) });
  }
  const oldTargets = blocks.findIndex((b) => b.heading === '## Targets');
  const newTargets = next.blocks.find((b) => b.heading === '## Targets');
  if (oldTargets !== -1 && newTargets !== undefined && sections.length > 0)
    blocks[oldTargets] = mergeTargets(blocks[oldTargets] as Block, newTargets);
  const line = `- \`${command}\` (${when}): ${sections.map((s) => s.replace(/^## /, '')).join('; ')}`;
  const head = old.head.includes(UPDATES_MARK)
    ? old.head.replace(/\n+$/, `\n${line}\n\n`)
    : `${old.head.replace(/\n+$/, '')}\n\n${UPDATES_MARK}\n\n${line}\n\n`;
  return { report: joinBlocks(sections.length > 0 ? head : old.head, blocks), sections };
}

function ensureGap(body: string): string {
  return body.endsWith('\n\n') ? body : `${body.replace(/\n*$/, '')}\n\n`;
}
