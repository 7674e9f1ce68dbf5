import { defineConfig } from 'vitest/config';

// Used only by bin/site-contract-tests.mjs: the site suite and the drift check against the WordPress
// given on the command line (WORDPRESS_URL, WORDPRESS_USER, WORDPRESS_APP_PASSWORD).
export default defineConfig({
  test: { include: ['target/site/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
