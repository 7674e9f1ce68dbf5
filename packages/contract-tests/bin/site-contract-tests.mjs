#!/usr/bin/env node
// Runs the site contract suite and the drift check against any WordPress:
//   site-contract-tests --base-url https://site.example.com --user USER --app-password PASSWORD
//     [--wp-version 7.1.4]
// Exit code 0 when every check passed. The base URL is the site's address (its REST API is
// `<base-url>/wp-json`); the user must be an administrator (the suite creates posts, pages, media, blocks,
// a menu, menu items, templates and a subscriber user, and deletes them afterwards). The WordPress version
// is read from the site's feed unless given; it decides what the spec's x-wp-since marks expect.
import { runSuiteCli } from './suite-cli.mjs';

runSuiteCli({
  usage: 'Usage: site-contract-tests --base-url URL --user USER --app-password PASSWORD [--wp-version 7.1.4]',
  options: {
    'base-url': { type: 'string' },
    user: { type: 'string' },
    'app-password': { type: 'string' },
    'wp-version': { type: 'string' },
  },
  required: ['base-url', 'user', 'app-password'],
  problem: (values) =>
    values['wp-version'] !== undefined && !/^\d+(\.\d+)*$/.test(values['wp-version'])
      ? `--wp-version must look like 7.1.4, not ${values['wp-version']}`
      : undefined,
  config: 'vitest.site-target.config.ts',
  env: (values) => {
    const env = {
      ...process.env,
      WORDPRESS_URL: values['base-url'].replace(/\/+$/, '').replace(/\/wp-json$/, ''),
      WORDPRESS_USER: values.user,
      WORDPRESS_APP_PASSWORD: values['app-password'],
      // A site that does not answer fails the run instead of being skipped.
      WORDPRESS_REQUIRED: 'true',
    };
    delete env.WORDPRESS_VERSION;
    if (values['wp-version']) env.WORDPRESS_VERSION = values['wp-version'];
    return env;
  },
});
