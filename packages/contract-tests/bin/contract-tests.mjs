#!/usr/bin/env node
// contract-tests platform|site --base-url … — see `contract-tests --help` and the package README.
import { runCli } from '../dist/cli.js';

// A reader that stops reading (`contract-tests --list-checks | head`) ends the run quietly, not with a trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });

process.exitCode = await runCli(process.argv.slice(2));
