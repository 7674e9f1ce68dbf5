// Generates the TypeScript types of every API that redocly.yaml lists with an `x-openapi-ts.output`,
// from that API's bundle in spec/dist/<name>.openapi.yaml (name = the alias without its version).
//
// The published client's `platform.ts` comes from platform-public (no x-internal operations);
// `platform-internal.ts` from the whole platform bundle, for this repository's reference server only.
//
// Why not `openapi-typescript --redocly ../../redocly.yaml`: that mode reads the unbundled roots, so
// it would not see what a bundle's decorators (remove-x-internal) leave out.
//
// Next to each `<name>.ts` it writes `<name>.security.ts`: the security schemes and each operation's
// security requirements, copied from the bundle so the client decides at runtime which calls need a
// bearer token without restating the spec; and the default `limit` of each list operation paged with
// `limit`/`offset`, so `paginate` knows a short page without being told the page size.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redoclyApis, redoclyConfigPath } from '@platform-api/spec/redocly-config';
import { collectOperations, HTTP_METHODS, loadBundle } from '@platform-api/validator';
import openapiTS, { astToString } from 'openapi-typescript';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(packageDir, '../..');
const toolVersion = JSON.parse(
  readFileSync(resolve(packageDir, 'node_modules/openapi-typescript/package.json'), 'utf8'),
).version;
const targets = redoclyApis()
  .filter(({ settings }) => settings['x-openapi-ts']?.output)
  .map(({ alias, name, settings: api }) => {
    return {
      alias,
      name,
      root: api.root,
      bundle: resolve(repoRoot, 'spec/dist', `${name}.openapi.yaml`),
      // x-openapi-ts.output is relative to redocly.yaml, as openapi-typescript's own --redocly mode reads it.
      output: resolve(dirname(redoclyConfigPath), api['x-openapi-ts'].output),
    };
  });

if (targets.length === 0) {
  console.error(`generate: no API in ${redoclyConfigPath} has an x-openapi-ts.output`);
  process.exit(1);
}

const skipped = [];
for (const target of targets) {
  const bundleFromRoot = relative(repoRoot, target.bundle);
  if (!existsSync(target.bundle)) {
    skipped.push(target.alias);
    console.warn(
      `generate: SKIPPED ${target.alias}: ${bundleFromRoot} does not exist ` +
        '(write the spec, then run `pnpm --filter @platform-api/spec bundle`)',
    );
    continue;
  }
  const header = (what) =>
    [
      `// generated from ${target.root.replace(/^\.\//, '')} (bundle ${bundleFromRoot}) by ${what} — do not edit.`,
      '// Regenerate with `pnpm --filter @platform-api/client generate`.',
      '',
    ].join('\n');

  // A property with a `default` is still optional in a request (the server fills it in): not required.
  const ast = await openapiTS(pathToFileURL(target.bundle), { silent: true, defaultNonNullable: false });
  mkdirSync(dirname(target.output), { recursive: true });
  writeFileSync(target.output, `${header(`openapi-typescript ${toolVersion}`)}\n${astToString(ast)}`);

  const document = loadBundle(target.name);
  const securityOutput = target.output.replace(/\.ts$/, '.security.ts');
  const typesModule = `./${target.output.split('/').pop().replace(/\.ts$/, '.js')}`;
  writeFileSync(securityOutput, securityModule(document, typesModule, header('scripts/generate.mjs')));
  const pagingOutput = target.output.replace(/\.ts$/, '.paging.ts');
  writeFileSync(pagingOutput, pagingModule(document, typesModule, header('scripts/generate.mjs')));
  console.log(
    `generate: ${target.alias}: ${bundleFromRoot} -> ${[target.output, securityOutput, pagingOutput].map((file) => relative(repoRoot, file)).join(', ')}`,
  );
}

if (skipped.length > 0) {
  console.warn(`generate: skipped ${skipped.join(', ')} (no bundle)`);
  if (process.env.CI === 'true') {
    console.error('generate: CI=true, every API must generate');
    process.exit(1);
  }
}

/** The security facts of one bundled document as a TypeScript module checked against its `paths`. */
function securityModule(document, typesModule, header) {
  const schemes = {};
  for (const [schemeName, scheme] of Object.entries(document.components?.securitySchemes ?? {})) {
    const { description: _description, ...rest } = scheme;
    schemes[schemeName] = rest;
  }
  const operations = {};
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem?.[method];
      if (!operation) continue;
      operations[path] ??= {};
      operations[path][method] = operation.security ?? document.security ?? [];
    }
  }
  const json = (value) => JSON.stringify(value, null, 2);
  // One line per path keeps the table readable.
  const operationLines = Object.entries(operations)
    .map(([path, byMethod]) => `  ${JSON.stringify(path)}: ${JSON.stringify(byMethod)},`)
    .join('\n');
  return `${header}
import type { paths } from '${typesModule}';

type SecurityRequirements = readonly { readonly [scheme: string]: readonly string[] }[];

/** components.securitySchemes (descriptions left out). */
export const securitySchemes = ${json(schemes)} as const;

/** Each operation's security requirements (alternatives; [] = public), by path and method. */
export const operationSecurity = {
${operationLines}
} as const satisfies {
  readonly [P in keyof paths]?: { readonly [M in ${HTTP_METHODS.map((m) => `'${m}'`).join(' | ')}]?: SecurityRequirements };
};
`;
}

/** The default `limit` of every GET that takes `limit` and `offset` query parameters, by path. */
function pagingModule(document, typesModule, header) {
  const lines = [];
  for (const operation of collectOperations(document)) {
    if (operation.kind !== 'path' || operation.method !== 'get') continue;
    const query = (name) =>
      operation.parameters.find(({ node }) => node.in === 'query' && node.name === name);
    const fallback = query('limit')?.node.schema?.default;
    if (!query('offset') || typeof fallback !== 'number') continue;
    lines.push(`  ${JSON.stringify(operation.path)}: ${fallback},`);
  }
  return `${header}
import type { paths } from '${typesModule}';

/** The page size a list operation paged with \`limit\`/\`offset\` uses when \`limit\` is left out, by path. */
export const defaultPageSizes = {
${lines.join('\n')}
} as const satisfies { readonly [P in keyof paths]?: number };
`;
}
