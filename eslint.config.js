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
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(fs|path|http|https|crypto|url|os|child_process|zlib|stream|util|events|net|assert)(/.*)?$', message: 'Use the node: prefix.' }] }],
    },
  },
  {
    // Browser scripts of the pages for people (plain JS, served as they are).
    files: ['generator/pages/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly' },
    },
  },
);
