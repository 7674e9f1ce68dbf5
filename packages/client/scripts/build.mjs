// `pnpm build` here works alone, on a fresh clone: src/generated/ and the spec's bundles are git-ignored,
// so it first has turbo bundle the spec and build the validator (what scripts/generate.mjs needs; both
// cached), generates the types, then runs tsup. Under turbo (TURBO_HASH set) the `build` task already
// depends on all of that: tsup only.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(packageDir, '../..');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(
      `build: ${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`,
    );
    process.exit(result.status ?? 1);
  }
}

if (!process.env.TURBO_HASH) {
  run(
    'pnpm',
    [
      'exec',
      'turbo',
      'run',
      'bundle',
      'build',
      '--filter=@platform-api/validator...',
      '--output-logs=errors-only',
    ],
    repoRoot,
  );
  run(process.execPath, [resolve(packageDir, 'scripts/generate.mjs')], packageDir);
}
run(resolve(packageDir, 'node_modules/.bin/tsup'), [], packageDir);
