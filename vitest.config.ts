import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // s3rver signs ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers through its legacy provider:
    // without it, listing more than 1,000 keys (one page) answers 500 (jamhall/s3rver#814).
    poolOptions: { forks: { execArgv: ['--openssl-legacy-provider'] } },
  },
});
