import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    ...sharedTestConfig,
    testTimeout: 30_000,
    // Each file gets its own server and database; files run in separate forks.
    pool: 'forks',
  },
});
