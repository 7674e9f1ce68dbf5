// Settings every package's vitest.config.ts shares: the console reporter, plus totals.json (vitest.totals.ts)
// that `npm test` (scripts/test.mjs) adds up into one closing "N passed, N failed" line.
import type { ViteUserConfig } from 'vitest/config';
import TotalsReporter from './vitest.totals.js';

/**
 * A `beforeAll` may start a service or two (Prism, the reference server, Chromium), each waiting up to
 * PLATFORM_START_TIMEOUT_MS (test-support's startTimeoutMs, default 3 min) on a loaded machine: the hook's
 * own limit is only there to end a hang, so it leaves room for two starts and the rest.
 */
const startTimeoutMs = Number(process.env.PLATFORM_START_TIMEOUT_MS) || 180_000;

export const sharedTestConfig = {
  reporters: ['default', new TotalsReporter()],
  include: ['test/**/*.test.ts'],
  hookTimeout: 2 * startTimeoutMs + 60_000,
  // A test that spawns a process or walks an API waits on a machine others load too: vitest's 5 s is a
  // quiet machine's figure. A package sets its own where its tests take longer.
  testTimeout: 60_000,
} satisfies NonNullable<ViteUserConfig['test']>;
