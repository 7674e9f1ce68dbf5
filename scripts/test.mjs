// `npm test`: installs everything the tests need and runs all of them through turbo.
// - the workspace (pnpm, frozen lockfile);
// - Debian's Chromium for the docs browser test and a real WordPress for the site contract tests,
//   when this machine lets us install them (root with apt-get); otherwise those suites print loudly
//   that they were skipped and why (and fail under CI=true);
// - then lint, typecheck and test of every package, and a one-line total.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

const wordpressEnv = {};
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

log('Lint, typecheck and test every package (turbo)');
let failed = false;
try {
  pnpm(['exec', 'turbo', 'run', 'lint', 'typecheck', 'test', '--output-logs=new-only', '--continue'], {
    env: { ...turboEnv, ...wordpressEnv },
  });
} catch (error) {
  failed = true;
  console.error(String(error));
}

// One closing line for every vitest run (each package writes test-results/vitest.json).
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const group of ['spec', 'docs', 'packages', 'apps']) {
  const dirs =
    group === 'spec' || group === 'docs'
      ? [join(root, group)]
      : readdirSync(join(root, group)).map((d) => join(root, group, d));
  for (const dir of dirs) {
    const report = join(dir, 'test-results', 'vitest.json');
    if (!existsSync(report)) continue;
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(
      readFileSync(report, 'utf8'),
    );
    totals.passed += numPassedTests;
    totals.failed += numFailedTests;
    totals.skipped += numPendingTests + numTodoTests;
  }
}
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed || totals.failed > 0 ? 1 : 0);
