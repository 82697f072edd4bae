// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'site/', 'var/', 'dist/', 'cdk.out/', 'infra/cdk.out/', 'data/weeks/', 'bench/out/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(fs|path|http|https|crypto|url|os|child_process|zlib|stream|util|events|net|assert)(/.*)?$',
              message: 'Use the node: prefix.',
            },
          ],
        },
      ],
    },
  },
  {
    // CommonJS: the preflight check every npm script preloads, which must load on any Node (tools/preflight.cjs), and
    // the import rules npm run lint checks (.dependency-cruiser.cjs).
    files: ['tools/*.cjs', '.dependency-cruiser.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // CloudFront Functions (cloudfront-js-2.0), deployed as they are: the runtime's globals and modules only.
    files: ['infra/edge/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: { console: 'readonly', require: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      'no-var': 'off',
      'no-control-regex': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^handler$', caughtErrors: 'none' }],
    },
  },
  {
    // Browser scripts of the pages for people (plain JS, served as they are).
    files: ['generator/pages/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
  },
);
