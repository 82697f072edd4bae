/** `/corrections`: how a firm corrects or removes its record, and what happens the same day. */
import type { PageContext } from './context.ts';
import { esc, shell } from '../../shim/pages/page-layout.ts';

/** The HTML of `/corrections`. */
export function correctionsPage(ctx: PageContext): string {
  const address = esc(ctx.correctionsAddress);
  const main = `<h1>Correct or remove your firm's record</h1>
<p class="lede">If an office of your firm is listed with a wrong name, address, phone number, website or opening hours, or you want an office or the whole firm removed, write to <a href="mailto:${address}">${address}</a>. Corrections and removals are handled the same day.</p>

<h2>What to send</h2>
<ul>
<li>The <code>listing_id</code> of each office concerned (it is in every search result and in the address of its API record, <code>/v1/firms/{listing_id}</code>), or the office's name and address.</li>
<li>What is wrong and what it should say, or that the office or firm should be removed.</li>
<li>Mail from an address at the firm's own website domain, so we can tell the request comes from the firm.</li>
</ul>

<h2>What happens</h2>
<ol>
<li>The correction or removal is added to the operator's corrections list, which is applied on top of every week's data, so it holds in later weeks too until you ask to lift it.</li>
<li>The directory is regenerated and republished the same day. A removed office disappears from every search, firm record, count and website link; a removed firm takes all its offices with it.</li>
<li>Cached copies expire within minutes of the republish.</li>
</ol>

<h2>What cannot be changed</h2>
<ul>
<li>The order of results: it is the straight-line distance from the searcher's location and nothing else. No firm can pay for a position or buy a better one.</li>
<li>The map-visibility figures: they are this service's own weekly measurement of a web map, recomputed from the samples each week. A correction of your address moves the office, and the next week's figures follow from the map.</li>
</ul>
<p>Journalists and auditors: every published version can be recomputed from its raw files; see <a href="/docs">the API reference</a>.</p>`;
  return shell({
    title: 'Corrections and removals: Injury Attorney Directory',
    description:
      'How a law firm corrects or removes its record in the injury attorney directory, handled the same day.',
    path: '/corrections',
    main,
    footnote: ctx.footnote,
  });
}
