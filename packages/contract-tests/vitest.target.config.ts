import { defineConfig } from 'vitest/config';

// Used only by bin/platform-contract-tests.mjs: the suite against a target given on the command line.
// target/site/ belongs to bin/site-contract-tests.mjs (vitest.site-target.config.ts).
export default defineConfig({
  test: { include: ['target/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
