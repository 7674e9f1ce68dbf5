// The contract suite a run judges with, frozen when the run starts: a copy of its built package (bin, dist)
// in the run's folder, its dependencies resolved through a link to its node_modules. Others rebuild
// packages/contract-tests while a half-hour run goes on; every mutant must meet the same suite.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';

export interface SuiteSnapshot {
  bin: string;
  /** sha256 (12 hex) of every file of its dist: which build judged the run. */
  buildHash: string;
}

function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const walk = (path: string) => {
    for (const entry of readdirSync(path).sort()) {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else hash.update(entry).update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 12);
}

export function snapshotSuite(suiteDir: string, workDir: string): SuiteSnapshot {
  if (!existsSync(join(suiteDir, 'dist', 'cli.js'))) {
    throw new Error(
      `recall: ${suiteDir} is not built (npx turbo run build --filter=@platform-api/contract-tests)`,
    );
  }
  const snapshot = join(workDir, 'contract-tests');
  rmSync(snapshot, { recursive: true, force: true });
  mkdirSync(snapshot, { recursive: true });
  for (const part of ['bin', 'dist', 'package.json', 'site-drift-allowlist.yaml']) {
    if (existsSync(join(suiteDir, part)))
      cpSync(join(suiteDir, part), join(snapshot, part), { recursive: true });
  }
  symlinkSync(join(suiteDir, 'node_modules'), join(snapshot, 'node_modules'), 'dir');
  return { bin: join(snapshot, 'bin', 'contract-tests.mjs'), buildHash: hashTree(join(snapshot, 'dist')) };
}
