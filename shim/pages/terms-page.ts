/** The terms of use page (/terms), linked from the OpenAPI document's termsOfService, with the data sources and licences. */
import { esc, shell } from './page-layout.ts';
import { DATA_SOURCES } from '../contract/attribution.ts';
import { SERVICE_NAME } from '../contract/constants.ts';
import { CALLER_RULES, TERMS_TEXT } from '../answer/openapi-info.ts';

/** The data sources as a list, each with its licence. */
function sourcesHtml(): string {
  const items = DATA_SOURCES.map((s) => {
    const licence = s.licence_url === null ? esc(s.licence) : `<a href="${esc(s.licence_url)}">${esc(s.licence)}</a>`;
    return `<li><a href="${esc(s.url)}">${esc(s.name)}</a>: ${esc(s.used_for)}. Licence: ${licence}.</li>`;
  });
  return `<ul>\n${items.join('\n')}\n</ul>`;
}

/** The /terms page as HTML, in the site's shell. Deterministic. */
export function termsPageHtml(): string {
  const main = [
    '<h1>Terms of use</h1>',
    `<p class="lede">${esc(TERMS_TEXT)}</p>`,
    '<h2>How to use the answers</h2>',
    `<p>${esc(CALLER_RULES)}</p>`,
    '<h2 id="audit">Auditing</h2>',
    '<p>The published objects of the version served now (its cell tree, office records, firm documents, coverage, changes and ' +
      'measurement data) are public at <code>/v/{version}/...</code>, with the pointer naming the version at ' +
      '<a href="/current.json">/current.json</a>, so that anyone can check that results are ordered by distance alone and ' +
      'recompute the visibility figures. They may be used to audit and recompute the service, not to copy or republish the ' +
      'directory. Every request for them counts toward the per-address ceiling on all requests (ten times the answer limit).</p>',
    '<h2 id="data">Data sources and licences</h2>',
    '<p>ZIP codes and "City, ST" searches are resolved with place data from these sources. It contains data from GeoNames, ' +
      'licensed under CC BY 4.0, and was changed: merged, deduplicated, rounded to 5 decimals and re-keyed. The same credit is in ' +
      '<a href="/v1/coverage">/v1/coverage</a> (<code>attribution</code>) and in the description of <a href="/openapi.json">/openapi.json</a>.</p>',
    sourcesHtml(),
    '<p>The software of the service is published under the MIT licence; the terms above govern how its answers are used.</p>',
    '<p>The API is described at <a href="/openapi.json">/openapi.json</a> and in <a href="/docs">the API reference</a>. Corrections: see <a href="/corrections">/corrections</a>.</p>',
  ].join('\n');
  return shell({
    title: `Terms of use – ${SERVICE_NAME}`,
    description: `How the ${SERVICE_NAME} API and its answers may be used, and where its place data comes from.`,
    path: '/terms',
    main,
  });
}
