#!/usr/bin/env node
// Runs the site contract suite and the drift check against any WordPress:
//   site-contract-tests --base-url https://site.example.com --user USER --app-password PASSWORD
//     [--wp-version 7.1.4]
// Exit code 0 when every check passed. The base URL is the site's address (its REST API is
// `<base-url>/wp-json`); the user must be an administrator (the suite creates posts, pages, media, blocks,
// a menu, menu items, templates and a subscriber user, and deletes them afterwards). The WordPress version
// is read from the site's feed unless given; it decides what the spec's x-wp-since marks expect.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const usage =
  'Usage: site-contract-tests --base-url URL --user USER --app-password PASSWORD [--wp-version 7.1.4]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      user: { type: 'string' },
      'app-password': { type: 'string' },
      'wp-version': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const missing = ['base-url', 'user', 'app-password'].filter((name) => !values[name]);
if (missing.length > 0) {
  console.error(`Missing ${missing.map((name) => `--${name}`).join(', ')}\n${usage}`);
  process.exit(2);
}
if (values['wp-version'] !== undefined && !/^\d+(\.\d+)*$/.test(values['wp-version'])) {
  console.error(`--wp-version must look like 7.1.4, not ${values['wp-version']}\n${usage}`);
  process.exit(2);
}

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
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
const result = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.site-target.config.ts'], {
  cwd: packageDir,
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
