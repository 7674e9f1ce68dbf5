// The generators and the compilers of the matrix, as a team would get them: the JDK, Maven, Go and Python
// already on the machine; openapi-generator's jar from Maven Central, oapi-codegen from the Go module
// proxy, openapi-python-client and the generated clients' runtime libraries from PyPI — all cached in
// <repo>/.state/generators, so only the first run downloads. The TypeScript generators are this package's
// devDependencies (pnpm-lock.yaml pins them). A toolchain that cannot be had says why.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonVenv } from '@platform-api/test-support';
import { runCommand, tail } from './commands.js';
import { VERSIONS } from './versions.js';

const here = dirname(fileURLToPath(import.meta.url));
export const packageDir = resolve(here, '../..');
const repoRoot = resolve(packageDir, '../..');
const stateDir = join(repoRoot, '.state/generators');

export type Toolchain<T> = ({ available: true } & T) | { available: false; reason: string };

export interface Java {
  /** The openapi-generator-cli jar. */
  jar: string;
  /** Maven's arguments every call takes: batch mode and the local repository in the state folder. */
  mavenArgs: string[];
}

export interface Go {
  /** The environment of every `go` command: module cache, build cache and binaries in the state folder. */
  env: NodeJS.ProcessEnv;
  oapiCodegen: string;
}

export interface Python {
  python: string;
  /** PATH with the venv's bin first, as in an activated venv (openapi-python-client runs ruff from it). */
  env: NodeJS.ProcessEnv;
}

export interface Node {
  tsc: string;
  heyApi: string;
  orval: string;
}

async function missing(what: string, file: string, args: string[]): Promise<string | undefined> {
  const result = await runCommand(file, args, { cwd: packageDir, timeoutMs: 120_000 });
  return result.ok ? undefined : `${what} is not usable (\`${result.command}\`: ${tail(result.output, 3)})`;
}

async function prepareJava(): Promise<Toolchain<Java>> {
  const problem =
    (await missing('java', 'java', ['-version'])) ?? (await missing('Maven', 'mvn', ['-B', '-q', '-v']));
  if (problem) return { available: false, reason: problem };
  const repository = join(stateDir, 'maven');
  const mavenArgs = ['-B', '-q', `-Dmaven.repo.local=${repository}`];
  const version = VERSIONS.openapiGenerator;
  const jar = join(
    repository,
    `org/openapitools/openapi-generator-cli/${version}/openapi-generator-cli-${version}.jar`,
  );
  if (!existsSync(jar)) {
    const fetched = await runCommand(
      'mvn',
      [
        ...mavenArgs,
        'dependency:get',
        `-Dartifact=org.openapitools:openapi-generator-cli:${version}`,
        '-Dtransitive=false',
      ],
      { cwd: packageDir, timeoutMs: 900_000 },
    );
    if (!fetched.ok || !existsSync(jar))
      return {
        available: false,
        reason: `cannot fetch openapi-generator ${version} from Maven Central (${tail(fetched.output, 5)})`,
      };
  }
  return { available: true, jar, mavenArgs };
}

async function prepareGo(): Promise<Toolchain<Go>> {
  const goPath = join(stateDir, 'go');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GOPATH: goPath,
    GOMODCACHE: join(goPath, 'pkg/mod'),
    GOCACHE: join(goPath, 'cache'),
    // Not the user's go/env file, not a newer toolchain than the machine's, no VCS stamping of scratch modules.
    GOENV: 'off',
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-buildvcs=false',
    GOTELEMETRY: 'off',
  };
  const problem = await missing('go', 'go', ['version']);
  if (problem) return { available: false, reason: problem };
  const version = VERSIONS.oapiCodegen;
  // Installed in a folder of its version, so a change of the pinned version installs it anew.
  const bin = join(goPath, 'bin', version);
  const oapiCodegen = join(bin, 'oapi-codegen');
  if (!existsSync(oapiCodegen)) {
    mkdirSync(goPath, { recursive: true });
    const installed = await runCommand(
      'go',
      ['install', `github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@${version}`],
      { cwd: packageDir, env: { ...env, GOBIN: bin }, timeoutMs: 900_000 },
    );
    if (!installed.ok)
      return {
        available: false,
        reason: `cannot build oapi-codegen ${version} from the Go module proxy (${tail(installed.output, 5)})`,
      };
  }
  return { available: true, env, oapiCodegen };
}

async function preparePython(): Promise<Toolchain<Python>> {
  const venv = await pythonVenv({
    dir: join(stateDir, 'python'),
    requirementsFile: join(packageDir, 'test/requirements.txt'),
    check: 'import openapi_python_client, pydantic, urllib3, dateutil, httpx, attrs',
  });
  if (!venv.available) return venv;
  const path = [dirname(venv.python), process.env.PATH].filter(Boolean).join(delimiter);
  return { available: true, python: venv.python, env: { ...process.env, PATH: path } };
}

function prepareNode(): Toolchain<Node> {
  const require = createRequire(join(packageDir, 'package.json'));
  const bin = (name: string) => join(packageDir, 'node_modules/.bin', name);
  return {
    available: true,
    tsc: require.resolve('typescript/bin/tsc'),
    heyApi: bin('openapi-ts'),
    orval: bin('orval'),
  };
}

export interface Toolchains {
  java: Toolchain<Java>;
  go: Toolchain<Go>;
  python: Toolchain<Python>;
  node: Toolchain<Node>;
}

/** Every toolchain, prepared one after the other (each download is heavy enough on its own). */
export async function prepareToolchains(): Promise<Toolchains> {
  const java = await prepareJava();
  const go = await prepareGo();
  const python = await preparePython();
  return { java, go, python, node: prepareNode() };
}
