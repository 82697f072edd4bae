/**
 * `npm run bench -- --only <sections> --update`: splice the sections one partial run measured into the committed
 * BENCHMARKS.md, leaving every other section (and its figures) as the last run that measured it wrote them.
 * Pure text in, text out: the report is split into `## ` blocks, blocks are matched by their heading line, and the
 * Targets table and its notes are matched row by row on the target's name.
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

/** The Targets block with the partial run's rows and notes replacing (or joining) the existing ones of the same name. */
function mergeTargets(existing: Block, partial: Block): Block {
  const lines = existing.body.split('\n');
  for (const line of partial.body.split('\n')) {
    const row = rowName(line);
    const note = noteName(line);
    const name = row ?? note;
    // A target the partial run did not measure keeps the committed figures.
    if (name === null || (row !== null && line.includes(' | not measured | '))) continue;
    const same = lines.findIndex((l) => (row !== null ? rowName(l) : noteName(l)) === name);
    if (same !== -1) {
      lines[same] = line;
      continue;
    }
    // A new target: after the last row (or note) of its kind.
    let last = -1;
    lines.forEach((l, i) => {
      if ((row !== null ? rowName(l) : noteName(l)) !== null || (row !== null && l.startsWith('|---'))) last = i;
    });
    lines.splice(last === -1 ? lines.length : last + 1, 0, line);
  }
  return { heading: existing.heading, body: lines.join('\n') };
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
