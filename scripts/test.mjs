// `npm test`: installs everything the tests need and runs all of them through turbo.
// - the workspace (pnpm, frozen lockfile);
// - Debian's Chromium for the docs browser test and a real WordPress for the site contract tests,
//   when this machine lets us install them (root with apt-get); otherwise those suites print loudly
//   that they were skipped and why (and fail under CI=true);
// - then lint, typecheck and test of every package, and a one-line total.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { installWorkspace, isRoot, log, pnpm, root, run, turboEnv } from './lib/toolchain.mjs';

installWorkspace();

const hasApt = existsSync('/usr/bin/apt-get');
if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) {
  if (isRoot && hasApt) {
    log("Installing Debian's Chromium for the docs browser test");
    run('apt-get', ['update', '-qq']);
    run(
      'apt-get',
      ['install', '-y', '-qq', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', 'chromium'],
      {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      },
    );
  } else {
    console.warn(
      '*** Chromium is missing and cannot be installed here (needs root and apt-get): the docs browser test will be skipped ***',
    );
  }
}

if (process.env.WORDPRESS_URL) {
  log(`Using the WordPress at ${process.env.WORDPRESS_URL}`);
} else if (isRoot && hasApt) {
  log('Starting a real WordPress for the site contract tests');
  run('bash', ['scripts/wordpress/wordpress.sh', 'up']);
} else {
  console.warn(
    '*** WordPress cannot be provisioned here (needs root and apt-get): the site contract tests against it will be skipped ***',
  );
}

/** The JSON reports the packages' vitest runs write (see vitest.shared.ts). */
function vitestReports() {
  const packageDirs = [
    'spec',
    'docs',
    ...['packages', 'apps'].flatMap((group) => readdirSync(join(root, group)).map((dir) => join(group, dir))),
  ];
  return packageDirs
    .map((dir) => join(root, dir, 'test-results', 'vitest.json'))
    .filter((file) => existsSync(file));
}

// Reports of an earlier run must not be counted: turbo restores those of the tasks it takes from cache.
for (const report of vitestReports()) rmSync(report);

log('Lint, typecheck and test every package (turbo)');
let failed = false;
try {
  pnpm(['exec', 'turbo', 'run', 'lint', 'typecheck', 'test', '--output-logs=new-only', '--continue'], {
    env: turboEnv,
  });
} catch (error) {
  failed = true;
  console.error(String(error));
}

// One closing line for every vitest run (each package writes test-results/vitest.json).
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const report of vitestReports()) {
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(
    readFileSync(report, 'utf8'),
  );
  totals.passed += numPassedTests;
  totals.failed += numFailedTests;
  totals.skipped += numPendingTests + numTodoTests;
}
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed || totals.failed > 0 ? 1 : 0);
