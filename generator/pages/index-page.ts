/** `/`: what the service is and is not, the search, and the measured metros. */
import { RADIUS_MILES } from '../../shim/contract/constants.ts';
import { disclosureFor, SYNTHETIC_NOTE } from '../../shim/answer/disclosure.ts';
import { esc, shell } from '../../shim/pages/page-layout.ts';
import type { PageContext } from './context.ts';

/** The HTML of `/`. */
export function indexPage(ctx: PageContext): string {
  const radii = [5, 10, RADIUS_MILES.default, 25, RADIUS_MILES.max]
    .map((r) => `<option value="${r}"${r === RADIUS_MILES.default ? ' selected' : ''}>${r} miles</option>`)
    .join('');
  const metros = ctx.metros
    .map(
      (m) =>
        `<li><a href="/metros/${esc(m.metro.slug)}">${esc(m.metro.name)}</a> (${m.week.gridPoints} grid points, ${m.officeShares.length} offices measured)</li>`,
    )
    .join('\n');
  // search.js names a metro by its name, not its slug, in result cards.
  const metroNames = JSON.stringify(Object.fromEntries(ctx.metros.map((m) => [m.metro.slug, m.metro.name])));
  const sample = ctx.synthetic
    ? `\n<p class="notice" id="sample-data"><strong>${esc(SYNTHETIC_NOTE)}</strong></p>`
    : '';
  const main = `<h1>Personal injury law offices near you, nearest first</h1>
<p class="lede">A public directory of personal injury law offices in the United States, listed by straight-line distance from the place you give, and this service's own weekly measurement of how often each office shows up in the top three of injury searches on a web map.</p>
<div class="is-not">
<p><strong>What this is not:</strong> not a referral, not a recommendation and not legal advice. Distance alone sets the order; no firm can pay for a position, and sponsorship or an enhanced profile never moves a firm up. There are no ratings or reviews. Check a lawyer's licence with the state bar before hiring.</p>
</div>${sample}

<h2 id="search-heading">Search</h2>
<form id="search" class="search" action="/v1/attorneys" method="get" role="search" aria-labelledby="search-heading" data-metro-names="${esc(metroNames)}">
<div>
<label for="location">ZIP code or city</label>
<input id="location" name="location" type="text" inputmode="text" autocomplete="postal-code" required maxlength="200" aria-describedby="location-hint">
<p id="location-hint" class="hint">A 5-digit ZIP such as 60601, or a city and state such as Chicago, IL.</p>
</div>
<div>
<label for="radius">Within</label>
<select id="radius" name="radius_miles">${radii}</select>
</div>
<div class="buttons">
<button type="submit">Search</button>
<button type="button" id="locate" class="secondary" hidden>Use my location</button>
</div>
</form>
<p id="status" role="status" aria-live="polite"></p>
<noscript><p>Without JavaScript the search form opens the raw JSON answer of <code>/v1/attorneys</code>.</p></noscript>

<section id="results" aria-labelledby="results-heading" hidden>
<h2 id="results-heading" tabindex="-1">Results</h2>
<p id="location-note" class="notice" hidden></p>
<p id="not-covered" class="notice" hidden>This area is not measured.</p>
<div class="results-layout">
<ol id="result-list" class="results"></ol>
<aside aria-labelledby="disclosure-heading">
<h3 id="disclosure-heading">About these results</h3>
<p id="disclosure" class="disclosure">${esc(disclosureFor({ synthetic: ctx.synthetic }))}</p>
</aside>
</div>
</section>

<h2 id="metros">The weekly measurement, by metro</h2>
<p>Each week the service samples five injury searches at a grid of points over each metro and records which offices the web map shows in its top three. Each metro's page shows how concentrated those top-three positions are and how often a sponsored or enhanced firm held one.</p>
<ul class="metro-list">
${metros}
</ul>

<h2>For assistants and developers</h2>
<p>The same data is a JSON API (<a href="/docs">API reference</a>, <a href="/openapi.json">openapi.json</a>) and an MCP server at <code>/mcp</code> for AI assistants. Firms can <a href="/corrections">correct or remove their record</a>.</p>

<h2>Privacy</h2>
<p>No cookies, no trackers and nothing loaded from other sites. For each search the service records the location sent, the time, your browser's user agent and a one-day salted hash of your network address (never the address itself), with the number of results. "Use my location" asks your browser, sends the coordinates rounded to about 10 metres, and nothing else.</p>`;
  return shell({
    title: 'Injury Attorney Directory: personal injury law offices by distance',
    description:
      'Personal injury law offices near a US location, ordered by distance alone, with a weekly map-visibility measurement.',
    path: '/',
    main,
    scripts: ['/assets/search.js'],
    footnote: ctx.footnote,
  });
}
