// The versions the matrix runs, in one place: the docs page (docs/guides/generators.md) shows them beside
// the results. The TypeScript generators' versions are this package's devDependencies, read from there.
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};

export const VERSIONS = {
  /** org.openapitools:openapi-generator-cli on Maven Central. */
  openapiGenerator: '7.25.0',
  /** github.com/oapi-codegen/oapi-codegen/v2 on the Go module proxy. */
  oapiCodegen: 'v2.8.2',
  /** On PyPI; pinned in test/requirements.txt, read from there. */
  openapiPythonClient: pinnedRequirement('openapi-python-client'),
  heyApi: devDependency('@hey-api/openapi-ts'),
  orval: devDependency('orval'),
  axios: devDependency('axios'),
  typescript: devDependency('typescript'),
};

function devDependency(name: string): string {
  const version = manifest.devDependencies[name];
  if (!version) throw new Error(`package.json has no devDependency ${name}`);
  return version;
}

function pinnedRequirement(name: string): string {
  const requirements = readFileSync(new URL('../requirements.txt', import.meta.url), 'utf8');
  const version = requirements.match(new RegExp(`^${name}==(\\S+)$`, 'm'))?.[1];
  if (!version) throw new Error(`test/requirements.txt does not pin ${name}`);
  return version;
}
