/**
 * The import rules `npm run lint` checks (dependency-cruiser): no cycle between modules or between folders, type-only
 * imports included, and the layers of the repository and of the shim, each importing only the ones below it.
 */
'use strict';

/** The shim's folders, lowest first: a folder may import only the ones before it (README.md, "Architecture"). */
const SHIM_LAYERS = [
  'lib',
  'contract',
  'store',
  'edge',
  'format',
  'search',
  'places',
  'answer',
  'pages',
  'http',
  'mcp',
  '', // the composition: app, routes, the Node server
  'aws',
];

/** The folder a layer's path pattern names ('' is the shim's own top-level files). */
const layerPath = (layer) => (layer === '' ? '^shim/[^/]+$' : `^shim/${layer}/`);

const shimLayerRules = SHIM_LAYERS.map((layer, i) => ({
  name: `shim-layer-${layer === '' ? 'root' : layer}`,
  severity: 'error',
  comment: `shim/${layer} imports only the shim layers below it: ${SHIM_LAYERS.slice(0, i)
    .map((l) => (l === '' ? 'shim/*.ts' : `shim/${l}`))
    .join(', ')}`,
  from: { path: layerPath(layer) },
  to: {
    path: SHIM_LAYERS.slice(i + 1)
      .map(layerPath)
      .join('|'),
  },
})).filter((rule) => rule.to.path !== '');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not reach itself through its imports (a cycle hides which one comes first).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Folders import each other one way only, so each can be read, tested and moved apart from those above it.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shim-reads-published-objects-only',
      severity: 'error',
      comment:
        'The request path imports nothing of the generator, the inputs, the benchmarks, the tests or the CDK app.',
      from: { path: '^shim/' },
      to: { path: '^(generator|data|bench|test|infra)/|^start\\.ts$' },
    },
    {
      name: 'generator-and-data-below-tools',
      severity: 'error',
      comment: 'The generator and the input tools import no benchmark, test, CDK app or start script.',
      from: { path: '^(generator|data)/' },
      to: { path: '^(bench|test|infra)/|^start\\.ts$' },
    },
    {
      name: 'tests-are-leaves',
      severity: 'error',
      comment: 'Nothing but a test imports test/: what a benchmark and a test share lives in bench/lib/.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    ...shimLayerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|site|var|dist|cdk\\.out|infra/cdk\\.out|bench/out|data/weeks)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'] },
  },
};
