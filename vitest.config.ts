import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    poolOptions: {
      // s3rver (the loopback S3 in tests) signs ListObjectsV2 continuation tokens with DES, which OpenSSL 3 refuses
      // unless its legacy provider is loaded: without it, listing more than 1,000 keys fails with InternalError.
      forks: { execArgv: ['--openssl-legacy-provider'] },
    },
  },
});
