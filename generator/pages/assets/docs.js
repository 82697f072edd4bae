// Starts the bundled Swagger UI on /docs against this origin's /openapi.json. Copied into the site by generator/pages.
'use strict';

window.addEventListener('DOMContentLoaded', () => {
  // validatorUrl null: Swagger UI would otherwise load a badge from validator.swagger.io (a third-party host).
  window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api', validatorUrl: null, deepLinking: false, tryItOutEnabled: true });
});
