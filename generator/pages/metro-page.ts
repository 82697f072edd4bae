/** `/metros/{slug}`: one metro's week made visible, with the charts' text equivalents beside them. */
import { MEASURED_QUERIES } from '../../shim/contract/constants.ts';
import { BAND_COLOURS, BAND_EDGES, gini, hexCells, hexMapSvg, hexResolution, lorenzSvg } from './charts.ts';
import type { HexCell } from './charts.ts';
import type { PageContext } from './context.ts';
import { esc, shell } from '../../shim/pages/page-layout.ts';
import type { MetroPageData, MetroWeek } from './metro-data.ts';

/** The files of one metro: its page and its two charts, by page name. */
export interface MetroFiles {
  html: string;
  lorenzSvg: string;
  mapSvg: string;
}

const f1 = (n: number): string => n.toFixed(1);

function signed(n: number): string {
  const r = Math.round(n * 10) / 10;
  return r > 0 ? `+${f1(r)}` : r < 0 ? `−${f1(-r)}` : '0.0';
}

/** Share of offices' combined top-three share held by the most visible `fraction` of offices. */
function topShareOfOffices(ascending: readonly number[], fraction: number): number {
  const total = ascending.reduce((a, b) => a + b, 0);
  const k = Math.ceil(ascending.length * fraction);
  const top = ascending.slice(ascending.length - k).reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : (100 * top) / total;
}

function bandLabel(i: number): string {
  const lo = i === 0 ? 0 : BAND_EDGES[i - 1];
  const hi = BAND_EDGES[i];
  return hi === undefined ? `${lo}% or more` : `${lo}% to under ${hi}%`;
}

function bandCounts(cells: readonly HexCell[]): number[] {
  const counts = BAND_COLOURS.map(() => 0);
  for (const c of cells) {
    const i = BAND_EDGES.findIndex((e) => c.pct < e);
    const band = i === -1 ? BAND_EDGES.length : i;
    counts[band] = (counts[band] ?? 0) + 1;
  }
  return counts;
}

function weekRow(label: string, now: number, before: number): string {
  return `<tr><th scope="row">${label}</th><td class="num">${f1(before)}%</td><td class="num">${f1(now)}%</td><td class="num">${signed(now - before)}</td></tr>`;
}

function weekTable(ctx: PageContext, week: MetroWeek, prev: MetroWeek | null): string {
  if (prev === null || ctx.previousWeek === null) {
    return `<p>Only one week of samples exists for this metro, so there is no week-over-week comparison yet.</p>`;
  }
  const rows = [
    weekRow('Top 1 firm’s share of top-three positions', week.top1, prev.top1),
    weekRow('Top 3 firms’ share', week.top3, prev.top3),
    weekRow('Top 10 firms’ share', week.top10, prev.top10),
    weekRow('Samples with a sponsored or enhanced firm in the top three', week.promotedPct, prev.promotedPct),
  ];
  return `<div class="table-scroll"><table>
<caption>Week over week (percentage points of change)</caption>
<thead><tr><th scope="col">Measure</th><th scope="col" class="num">${esc(ctx.previousWeek)}</th><th scope="col" class="num">${esc(ctx.week)}</th><th scope="col" class="num">Change</th></tr></thead>
<tbody>
${rows.join('\n')}
<tr><th scope="row">Firms holding any top-three position</th><td class="num">${prev.firmsInTop3}</td><td class="num">${week.firmsInTop3}</td><td class="num">${week.firmsInTop3 - prev.firmsInTop3 > 0 ? '+' : ''}${week.firmsInTop3 - prev.firmsInTop3}</td></tr>
</tbody></table></div>
<p class="hint">The previous week is counted with this week's grouping of offices into firms and this week's sponsored and enhanced flags, so the change reflects the map, not a relabelling.</p>`;
}

/** The page and charts of one measured metro. */
export function metroFiles(ctx: PageContext, data: MetroPageData): MetroFiles {
  const { metro, week, previous, officeShares } = data;
  const name = metro.name;
  const cells = hexCells(week.points, hexResolution(week.points));
  const counts = bandCounts(cells);
  const zero = officeShares.filter((v) => v === 0).length;
  const g = gini(officeShares);
  const deciles = [0.01, 0.1, 0.25, 0.5];

  const lorenzTitle = `${name}: how top-three appearances are shared among ${officeShares.length} measured offices`;
  const mapTitle = `${name}: map of ${cells.length} hexagons shaded by how often a sponsored or enhanced firm held a top-three position`;
  const shareRows = deciles
    .map(
      (d) =>
        `<tr><th scope="row">Most visible ${d * 100}% of offices</th><td class="num">${f1(topShareOfOffices(officeShares, d))}%</td></tr>`,
    )
    .join('\n');
  const bandRows = BAND_COLOURS.map(
    (_c, i) =>
      `<tr><th scope="row"><span class="swatch band-${i}" aria-hidden="true"></span>${bandLabel(i)}</th><td class="num">${counts[i] ?? 0}</td></tr>`,
  ).join('\n');
  const hexRows = cells
    .map(
      (c) =>
        `<tr><td>${esc(c.cell)}</td><td class="num">${c.samples}</td><td class="num">${c.promoted}</td><td class="num">${f1(c.pct)}%</td></tr>`,
    )
    .join('\n');

  const main = `<h1>${esc(name)}: who holds the top three map positions</h1>
<p class="lede">Week ${esc(ctx.week)} (from ${esc(ctx.weekOf)}): ${week.gridPoints} grid points over the metro × ${MEASURED_QUERIES.length} injury searches = ${week.samples} samples of a web map's ranking. This measures visibility on a map, not the quality of any lawyer.</p>

<h2>Concentration</h2>
<ul class="stats">
<li><strong>${f1(week.top1)}%</strong> of top-three positions held by the single most visible firm</li>
<li><strong>${f1(week.top3)}%</strong> held by the top 3 firms</li>
<li><strong>${f1(week.top10)}%</strong> held by the top 10 firms</li>
<li><strong>${week.firmsInTop3}</strong> firms held any top-three position</li>
<li><strong>${f1(week.promotedPct)}%</strong> of samples had a sponsored or enhanced firm in the top three</li>
</ul>
<p class="hint">Shares count the ${week.slotsFilled} filled top-three positions (up to three per sample), including businesses that are not in this directory. A firm with two offices in one top three holds two positions.</p>

<div class="figures">
<figure>
<img src="/assets/metro-${esc(metro.slug)}-lorenz.svg" width="480" height="360" alt="${esc(lorenzTitle)}. Gini coefficient ${g}. Details in the table that follows.">
<figcaption>Lorenz curve of each office's top3_share_pct: the further the solid curve bends below the dashed diagonal, the more the top three are held by few offices. Gini coefficient ${g} (0 = evenly shared, 1 = one office holds all). ${zero} of ${officeShares.length} measured offices never reached the top three.</figcaption>
<div class="table-scroll"><table>
<caption>Share of all offices' top-three appearances</caption>
<thead><tr><th scope="col">Offices</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>${shareRows}</tbody></table></div>
</figure>

<figure>
<img src="/assets/metro-${esc(metro.slug)}-map.svg" width="560" height="480" alt="${esc(mapTitle)}. Counts per shade in the table that follows.">
<figcaption>The sampling grid pooled into hexagons (H3) over the metro's area, north up. Darker hexagons are where a sponsored or enhanced firm was more often among the map's top three.</figcaption>
<ul class="legend" aria-hidden="true">${BAND_COLOURS.map((_c, i) => `<li><span class="swatch band-${i}"></span>${bandLabel(i)}</li>`).join('')}</ul>
<div class="table-scroll"><table>
<caption>Hexagons by share of samples with a sponsored or enhanced firm in the top three</caption>
<thead><tr><th scope="col">Share of samples</th><th scope="col" class="num">Hexagons</th></tr></thead>
<tbody>${bandRows}</tbody></table></div>
</figure>
</div>

<h2>Week over week</h2>
${weekTable(ctx, week, previous)}

<details>
<summary>Every hexagon (${cells.length})</summary>
<div class="table-scroll"><table>
<caption>Samples per hexagon and how many had a sponsored or enhanced firm in the top three</caption>
<thead><tr><th scope="col">H3 cell</th><th scope="col" class="num">Samples</th><th scope="col" class="num">With one</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
${hexRows}
</tbody></table></div>
</details>

<p>Search near ${esc(metro.principal_cities[0] ?? name)} from <a href="/">the search page</a>; the figures per office are in every result as <code>map_visibility</code>.</p>`;

  return {
    html: shell({
      title: `${name}: map visibility concentration, week ${ctx.week}`,
      description: `How concentrated the top three web-map positions for injury searches are in ${name}, week ${ctx.week}.`,
      path: `/metros/${metro.slug}`,
      main,
      footnote: ctx.footnote,
    }),
    lorenzSvg: lorenzSvg(officeShares, lorenzTitle),
    mapSvg: hexMapSvg(cells, mapTitle),
  };
}
