#!/usr/bin/env node
// The bin pnpm links at install time, before any build: a bin naming dist/cli.js (made by the build) had
// every fresh install warn "Failed to create bin … ENOENT". This one runs the built CLI, or says how to build it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error(
    'platform-server is not built yet: run `pnpm exec turbo run build --filter=@platform-api/server` (or `npm start`) in the repository first.',
  );
  process.exit(1);
}
await import(cli.href);
