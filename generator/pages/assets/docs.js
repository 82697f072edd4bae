// Starts the bundled Swagger UI on /docs against this origin's /openapi.json. Copied into the site by generator/pages.
'use strict';

window.addEventListener('DOMContentLoaded', () => {
  // The MCP snippets name this server: its real origin, whatever host or port the page was opened on.
  for (const el of document.querySelectorAll('.origin')) el.textContent = window.location.origin;
  const root = document.getElementById('api');
  if (!root) return;
  // Swagger UI renders its server chooser without a label; name it for screen readers whenever it appears.
  new window.MutationObserver(() => {
    const servers = document.getElementById('servers');
    if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
  }).observe(root, { childList: true, subtree: true });
  // validatorUrl null: Swagger UI would otherwise load a badge from validator.swagger.io (a third-party host).
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#api',
    validatorUrl: null,
    deepLinking: false,
    tryItOutEnabled: true,
  });
});
