import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    pool: 'forks',
    // Both cores: Vitest's default leaves one free, which on a two-core machine ran the files one at a time.
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
