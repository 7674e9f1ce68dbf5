// Settings every package's vitest.config.ts shares: the console reporter, plus a JSON report that
// `npm test` (scripts/test.mjs) adds up into one closing "N passed, N failed" line.
import type { ViteUserConfig } from 'vitest/config';

export const sharedTestConfig = {
  reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  include: ['test/**/*.test.ts'],
} satisfies NonNullable<ViteUserConfig['test']>;
