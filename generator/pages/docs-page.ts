/** `/docs`: the API reference rendered in the browser by the bundled Swagger UI from /openapi.json, and the MCP setup. */
import { SERVICE_NAME } from '../../shim/contract/constants.ts';
import type { PageContext } from './context.ts';
import { esc, shell } from '../../shim/pages/page-layout.ts';

/**
 * Stands for this server's origin in the MCP snippets: the page is generated once per version and served from any host,
 * so docs.js writes the page's real origin (location.origin) into each `.origin` element when it runs.
 */
const PLACEHOLDER_ORIGIN = 'https://<this host>';

/** `text` escaped, with each placeholder origin in a `.origin` span for docs.js to fill in. */
function withOrigin(text: string): string {
  return esc(text)
    .split(esc(PLACEHOLDER_ORIGIN))
    .join(`<span class="origin">${esc(PLACEHOLDER_ORIGIN)}</span>`);
}

/** The HTML of `/docs`. */
export function docsPage(ctx: PageContext): string {
  const urlConfig = JSON.stringify({ mcpServers: { [SERVICE_NAME]: { url: `${PLACEHOLDER_ORIGIN}/mcp` } } }, null, 2);
  const vscode = JSON.stringify(
    { servers: { [SERVICE_NAME]: { type: 'http', url: `${PLACEHOLDER_ORIGIN}/mcp` } } },
    null,
    2,
  );
  const main = `<h1>API reference</h1>
<p class="lede">Four read-only operations, no key: <code>GET /v1/attorneys</code> (offices near a location, nearest first), <code>GET /v1/firms/{listing_id}</code>, <code>GET /v1/coverage</code> (what is measured, and the data's sources) and <code>GET /v1/changes</code> (what changed since the previous version, for auditors); <code>GET /r/{listing_id}</code> opens a firm's website. The machine-readable contract is <a href="/openapi.json">/openapi.json</a>; below it is rendered with "Try it out" against this server.</p>

<h2 id="mcp">Use it from an AI assistant (MCP)</h2>
<p>The search, firm and coverage operations are MCP tools at <code>/mcp</code> (Streamable HTTP, no session, no key): <code>find_injury_attorneys</code>, <code>get_firm</code> and <code>get_coverage</code>. The addresses below are this server's own<noscript> once JavaScript runs; without it, replace <code>${esc(PLACEHOLDER_ORIGIN)}</code> with the address in your browser's location bar (locally <code>http://127.0.0.1:8787</code>)</noscript>.</p>
<p>Clients that take a URL (the <code>mcpServers</code> format):</p>
<pre><code>${withOrigin(urlConfig)}</code></pre>
<p>Claude Code:</p>
<pre><code>${withOrigin(`claude mcp add --transport http ${SERVICE_NAME} ${PLACEHOLDER_ORIGIN}/mcp`)}</code></pre>
<p>VS Code (<code>.vscode/mcp.json</code>):</p>
<pre><code>${withOrigin(vscode)}</code></pre>

<h2 id="reference">Endpoints</h2>
<noscript><p>The interactive reference needs JavaScript; the contract itself is plain JSON at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<div id="api"></div>`;
  return shell({
    title: 'API reference and MCP setup: Injury Attorney Directory',
    description: 'OpenAPI reference of the injury attorney directory API and MCP configuration for AI assistants.',
    path: '/docs',
    main,
    styles: ['/assets/swagger-ui.css', '/assets/docs.css'],
    scripts: ['/assets/swagger-ui-bundle.js', '/assets/docs.js'],
    footnote: ctx.footnote,
  });
}
