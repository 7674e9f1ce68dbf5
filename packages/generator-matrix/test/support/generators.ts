// The matrix's generators: how each one generates a client from a bundle and how that client is checked to
// compile, with the commands and flags a team of that language uses (no flag beyond the language's
// ordinary ones, no edit of the output). Versions: ./versions.ts.
import { cpSync, readdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type CommandResult, runCommand } from './commands.js';
import { packageDir, type Toolchain, type Toolchains } from './toolchains.js';
import { VERSIONS } from './versions.js';

const require = createRequire(import.meta.url);

export type BundleName = 'platform-portable' | 'site';

export interface Bundle {
  name: BundleName;
  /** The bundle file in @platform-api/spec's dist/. */
  file: string;
  /** The generated package's name (Go package, Python module prefix). */
  packageName: string;
}

export const BUNDLES: Bundle[] = [
  {
    name: 'platform-portable',
    file: require.resolve('@platform-api/spec/platform-portable.openapi.json'),
    packageName: 'platform',
  },
  { name: 'site', file: require.resolve('@platform-api/spec/site.openapi.json'), packageName: 'site' },
];

/** One generator on one bundle: where its output goes, and the toolchains it may use. */
export interface Cell {
  bundle: Bundle;
  /** An empty folder of its own. */
  out: string;
  tools: Toolchains;
}

export interface Generator {
  id: string;
  /** As the docs page names it. */
  label: string;
  version: string;
  /** The toolchains its generation and compilation use. */
  needs: (keyof Toolchains)[];
  generate(cell: Cell): Promise<CommandResult>;
  /** Absent where there is nothing to compile (openapi-generator's validation). */
  compile?: { how: string; run(cell: Cell): Promise<CommandResult> };
}

/** The toolchain, known to be available: cells of an unavailable toolchain are never run. */
function ready<T>(toolchain: Toolchain<T>): T {
  if (!toolchain.available) throw new Error(`toolchain unavailable: ${toolchain.reason}`);
  return toolchain;
}

/** Runs the commands one after the other until one fails; the result of the last one run. */
async function inOrder(...commands: (() => Promise<CommandResult>)[]): Promise<CommandResult> {
  let result: CommandResult = { ok: true, output: '', command: '' };
  for (const command of commands) {
    result = await command();
    if (!result.ok) break;
  }
  return result;
}

function openapiGenerator(cell: Cell, args: string[]): Promise<CommandResult> {
  return runCommand('java', ['-jar', ready(cell.tools.java).jar, ...args, '-i', cell.bundle.file], {
    cwd: cell.out,
  });
}

/** `tsc --strict` on the output's entry points, as the docs' reproduce section says. */
function strictTypescript(cell: Cell, entryPoints: string[]): Promise<CommandResult> {
  const args = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext'];
  args.push('--moduleResolution', 'nodenext', '--lib', 'es2022,dom,dom.iterable', '--skipLibCheck');
  return runCommand(process.execPath, [ready(cell.tools.node).tsc, ...args, ...entryPoints], {
    cwd: cell.out,
  });
}

/** Compiles every module of a Python package and imports it. */
function pythonPackage(cell: Cell, name: string): Promise<CommandResult> {
  const { python, env } = ready(cell.tools.python);
  return inOrder(
    () => runCommand(python, ['-m', 'compileall', '-q', name], { cwd: cell.out, env }),
    () => runCommand(python, ['-c', `import ${name}`], { cwd: cell.out, env }),
  );
}

function goBuild(cell: Cell): Promise<CommandResult> {
  const { env } = ready(cell.tools.go);
  return inOrder(
    () => runCommand('go', ['mod', 'tidy'], { cwd: cell.out, env }),
    () => runCommand('go', ['build', './...'], { cwd: cell.out, env }),
  );
}

/** The Python package openapi-generator `python` writes. */
const pythonClientPackage = (bundle: Bundle) => `${bundle.packageName}_client`;

/** The Go module the oapi-codegen client is compiled (and walked) in: test/walks/go's go.mod and go.sum. */
export const oapiCodegenModule = join(packageDir, 'test/walks/go');

export const GENERATORS: Generator[] = [
  {
    id: 'openapi-generator-validate',
    label: 'openapi-generator `validate`',
    version: VERSIONS.openapiGenerator,
    needs: ['java'],
    generate: (cell) => openapiGenerator(cell, ['validate']),
  },
  {
    id: 'openapi-generator-typescript-fetch',
    label: 'openapi-generator `typescript-fetch`',
    version: VERSIONS.openapiGenerator,
    needs: ['java', 'node'],
    generate: (cell) => openapiGenerator(cell, ['generate', '-g', 'typescript-fetch', '-o', '.']),
    compile: { how: '`tsc --strict`', run: (cell) => strictTypescript(cell, ['index.ts']) },
  },
  {
    id: 'openapi-generator-python',
    label: 'openapi-generator `python`',
    version: VERSIONS.openapiGenerator,
    needs: ['java', 'python'],
    generate: (cell) =>
      openapiGenerator(cell, [
        'generate',
        '-g',
        'python',
        '-o',
        '.',
        `--additional-properties=packageName=${pythonClientPackage(cell.bundle)}`,
      ]),
    compile: {
      how: '`compileall`, `import`',
      run: (cell) => pythonPackage(cell, pythonClientPackage(cell.bundle)),
    },
  },
  {
    id: 'openapi-generator-go',
    label: 'openapi-generator `go`',
    version: VERSIONS.openapiGenerator,
    needs: ['java', 'go'],
    generate: (cell) =>
      openapiGenerator(cell, [
        'generate',
        '-g',
        'go',
        '-o',
        '.',
        `--additional-properties=packageName=${cell.bundle.packageName}`,
      ]),
    compile: { how: '`go build`', run: goBuild },
  },
  {
    id: 'openapi-generator-java',
    label: 'openapi-generator `java` (library `native`)',
    version: VERSIONS.openapiGenerator,
    needs: ['java'],
    generate: (cell) => openapiGenerator(cell, ['generate', '-g', 'java', '--library', 'native', '-o', '.']),
    compile: {
      how: '`mvn compile`',
      run: (cell) =>
        runCommand('mvn', [...ready(cell.tools.java).mavenArgs, 'compile'], {
          cwd: cell.out,
          timeoutMs: 1_200_000,
        }),
    },
  },
  {
    id: 'oapi-codegen',
    label: 'oapi-codegen (`-generate types,client`)',
    version: VERSIONS.oapiCodegen,
    needs: ['go'],
    generate: (cell) => {
      const { oapiCodegen, env } = ready(cell.tools.go);
      const { packageName } = cell.bundle;
      for (const file of ['go.mod', 'go.sum']) cpSync(join(oapiCodegenModule, file), join(cell.out, file));
      return runCommand(
        oapiCodegen,
        [
          '-generate',
          'types,client',
          '-package',
          packageName,
          '-o',
          join(packageName, `${packageName}.gen.go`),
          cell.bundle.file,
        ],
        { cwd: cell.out, env },
      );
    },
    compile: { how: '`go build`', run: goBuild },
  },
  {
    id: 'openapi-python-client',
    label: 'openapi-python-client',
    version: VERSIONS.openapiPythonClient,
    needs: ['python'],
    generate: (cell) => {
      const { python, env } = ready(cell.tools.python);
      return runCommand(
        python,
        ['-m', 'openapi_python_client', 'generate', '--path', cell.bundle.file, '--output-path', 'client'],
        { cwd: cell.out, env },
      );
    },
    compile: {
      how: '`compileall`, `import`',
      run: (cell) => {
        // The package is named after the description's title; it is the folder with a client.py.
        const clientDir = join(cell.out, 'client');
        const name = readdirSync(clientDir, { withFileTypes: true }).find(
          (entry) => entry.isDirectory() && readdirSync(join(clientDir, entry.name)).includes('client.py'),
        )?.name;
        if (!name) return Promise.resolve({ ok: false, output: 'no package with a client.py', command: '' });
        return pythonPackage({ ...cell, out: clientDir }, name);
      },
    },
  },
  {
    id: 'hey-api',
    label: '@hey-api/openapi-ts',
    version: VERSIONS.heyApi,
    needs: ['node'],
    generate: (cell) =>
      runCommand(ready(cell.tools.node).heyApi, ['-i', cell.bundle.file, '-o', 'client'], { cwd: cell.out }),
    compile: { how: '`tsc --strict`', run: (cell) => strictTypescript(cell, ['client/index.ts']) },
  },
  {
    id: 'orval',
    label: `orval (axios client, axios ${VERSIONS.axios})`,
    version: VERSIONS.orval,
    needs: ['node'],
    generate: (cell) =>
      runCommand(ready(cell.tools.node).orval, ['--input', cell.bundle.file, '--output', 'api.ts'], {
        cwd: cell.out,
      }),
    compile: {
      how: '`tsc --strict`',
      run: (cell) => {
        // The generated client imports axios: the pinned one, as the client's own project would install it.
        symlinkSync(join(packageDir, 'node_modules'), join(cell.out, 'node_modules'), 'dir');
        return strictTypescript(cell, ['api.ts']);
      },
    },
  },
];
