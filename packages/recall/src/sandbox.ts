// The server built with every mutant in it: a copy of apps/server's sources in .state/recall/server with
// the instrumented files put in place, built by the server's own tsup config. node_modules is a link to the
// server's, so the copy resolves its dependencies (and the workspace packages) exactly as the server does.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { InstrumentedServer } from './mutants.js';
import { serverRoot } from './paths.js';

export interface SandboxBuild {
  /** The instrumented server's CLI (`serve`, `clients create`). */
  cli: string;
}

/** Builds into `<workDir>/server`. */
export async function buildInstrumentedServer(
  instrumented: InstrumentedServer,
  workDir: string,
): Promise<SandboxBuild> {
  const sandbox = join(workDir, 'server');
  rmSync(sandbox, { recursive: true, force: true });
  mkdirSync(sandbox, { recursive: true });
  cpSync(join(serverRoot, 'src'), join(sandbox, 'src'), { recursive: true });
  cpSync(join(serverRoot, 'package.json'), join(sandbox, 'package.json'));
  cpSync(join(serverRoot, 'tsup.config.ts'), join(sandbox, 'tsup.config.ts'));
  // The server's tsconfig extends the repository's by a relative path that does not hold from here.
  writeFileSync(
    join(sandbox, 'tsconfig.json'),
    JSON.stringify({ extends: join(serverRoot, 'tsconfig.json'), include: ['src'] }),
  );
  symlinkSync(join(serverRoot, 'node_modules'), join(sandbox, 'node_modules'), 'dir');
  for (const [file, content] of instrumented.files) writeFileSync(join(sandbox, file), content);
  try {
    await promisify(execFile)(join(serverRoot, 'node_modules', '.bin', 'tsup'), [], {
      cwd: sandbox,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 300_000,
    });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`recall: the instrumented server did not build:\n${stderr || stdout || String(error)}`);
  }
  return { cli: join(sandbox, 'dist', 'cli.js') };
}
