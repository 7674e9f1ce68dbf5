// Reading the bundles @platform-api/spec builds (spec/dist/<name>.openapi.json).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenApiDocument } from './openapi.js';

const require = createRequire(import.meta.url);

export type BundleName = 'platform' | 'platform-public' | 'site';

/** The file of a bundle built by @platform-api/spec. */
export function bundlePath(name: BundleName): string {
  return require.resolve(`@platform-api/spec/${name}.openapi.json`);
}

/** A bundle by name, or any bundled OpenAPI document (JSON) by path. */
export function loadBundle(nameOrPath: BundleName | (string & {})): OpenApiDocument {
  const file = ['platform', 'platform-public', 'site'].includes(nameOrPath)
    ? bundlePath(nameOrPath as BundleName)
    : nameOrPath;
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}
