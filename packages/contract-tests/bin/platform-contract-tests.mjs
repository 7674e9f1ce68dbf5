#!/usr/bin/env node
// Runs the platform contract suite against any server:
//   platform-contract-tests --base-url https://api.example.com --client-id ID --client-secret SECRET
//     [--scopes "user data chat"] [--include-internal]
// Exit code 0 when every check passed. The checks: every operation called with the spec's examples and
// answered as documented (status, content type, headers, body), 401 without credentials, 4xx for
// schema-invalid bodies.
import { runSuiteCli } from './suite-cli.mjs';

runSuiteCli({
  usage:
    'Usage: platform-contract-tests --base-url URL --client-id ID --client-secret SECRET [--scopes "user data chat"] [--include-internal]',
  options: {
    'base-url': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    scopes: { type: 'string', default: 'user data chat' },
    'include-internal': { type: 'boolean', default: false },
  },
  required: ['base-url', 'client-id', 'client-secret'],
  config: 'vitest.target.config.ts',
  env: (values) => ({
    ...process.env,
    PLATFORM_TARGET_URL: values['base-url'].replace(/\/$/, ''),
    PLATFORM_CLIENT_ID: values['client-id'],
    PLATFORM_CLIENT_SECRET: values['client-secret'],
    PLATFORM_SCOPES: values.scopes,
    PLATFORM_INCLUDE_INTERNAL: String(values['include-internal']),
  }),
});
