// What the suite CLIs (platform-contract-tests, site-contract-tests) share: parse the options, refuse
// missing or malformed ones with the usage (exit 2), then run the package's vitest on a target config with
// the options handed over in the environment; the exit code is vitest's (0 when every check passed).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * @param {{ usage: string, options: import('node:util').ParseArgsConfig['options'], required: string[],
 *   problem?: (values: Record<string, any>) => string | undefined,
 *   config: string, env: (values: Record<string, any>) => NodeJS.ProcessEnv }} cli
 */
export function runSuiteCli(cli) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...cli.options, help: { type: 'boolean', default: false } } }));
  } catch (error) {
    fail(error.message);
  }
  if (values.help) {
    console.log(cli.usage);
    process.exit(0);
  }
  const missing = cli.required.filter((name) => !values[name]);
  if (missing.length > 0) fail(`Missing ${missing.map((name) => `--${name}`).join(', ')}`);
  const problem = cli.problem?.(values);
  if (problem) fail(problem);

  const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  const result = spawnSync(process.execPath, [vitest, 'run', '--config', cli.config], {
    cwd: packageDir,
    stdio: 'inherit',
    env: cli.env(values),
  });
  process.exit(result.status ?? 1);

  function fail(message) {
    console.error(`${message}\n${cli.usage}`);
    process.exit(2);
  }
}
