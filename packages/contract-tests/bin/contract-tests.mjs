#!/usr/bin/env node
// contract-tests platform|site --base-url … — see `contract-tests --help` and the package README.
import { runCli } from '../dist/cli.js';

process.exitCode = await runCli(process.argv.slice(2));
