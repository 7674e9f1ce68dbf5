#!/usr/bin/env node
// Runs the platform contract suite against any server:
//   platform-contract-tests --base-url https://api.example.com --client-id ID --client-secret SECRET
//     [--scopes "user data chat"] [--include-internal]
// Exit code 0 when every check passed. The checks: every operation called with the spec's examples and
// answered as documented (status, content type, headers, body), 401 without credentials, 4xx for
// schema-invalid bodies.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const usage =
  'Usage: platform-contract-tests --base-url URL --client-id ID --client-secret SECRET [--scopes "user data chat"] [--include-internal]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      scopes: { type: 'string', default: 'user data chat' },
      'include-internal': { type: 'boolean', default: false },
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
const missing = ['base-url', 'client-id', 'client-secret'].filter((name) => !values[name]);
if (missing.length > 0) {
  console.error(`Missing ${missing.map((name) => `--${name}`).join(', ')}\n${usage}`);
  process.exit(2);
}

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.target.config.ts'], {
  cwd: packageDir,
  stdio: 'inherit',
  env: {
    ...process.env,
    PLATFORM_TARGET_URL: values['base-url'].replace(/\/$/, ''),
    PLATFORM_CLIENT_ID: values['client-id'],
    PLATFORM_CLIENT_SECRET: values['client-secret'],
    PLATFORM_SCOPES: values.scopes,
    PLATFORM_INCLUDE_INTERNAL: String(values['include-internal']),
  },
});
process.exit(result.status ?? 1);
