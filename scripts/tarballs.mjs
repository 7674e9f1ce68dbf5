// `npm run tarballs`: the client and the contract suite as tarballs, for installing them where no registry
// serves them yet. Installs the workspace, builds the packages, packs them into dist/packages/ (the suite with
// its workspace dependencies inside: scripts/lib/publishable.mjs) and prints the commands that install them.
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packTarballs, publishablePackages } from './lib/publishable.mjs';
import { installWorkspace, log, pnpm, pnpmCommand, root, turboEnv } from './lib/toolchain.mjs';

const outDir = join(root, 'dist', 'packages');
const packages = publishablePackages();

installWorkspace();
log(`Building ${packages.map(({ name }) => name).join(', ')} (turbo)`);
pnpm(
  [
    'exec',
    'turbo',
    'run',
    'build',
    'bundle',
    ...packages.map(({ name }) => `--filter=${name}`),
    '--output-logs=errors-only',
  ],
  { env: turboEnv },
);
log(`Packing them into ${relative(root, outDir)}/`);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const tarballs = packTarballs(outDir, { pnpm: pnpmCommand() });
for (const tarball of tarballs) console.log(`  ${relative(root, tarball)}`);

console.log(`
Install them in your project with npm install (the client) or npm install --save-dev (the contract suite):
${tarballs.map((tarball) => `  npm install ${tarball}`).join('\n')}`);
