import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenApiDocument } from '@platform-api/validator';

const require = createRequire(import.meta.url);

export type BundleName = 'platform' | 'platform-public' | 'site';

/** Reads a bundle built by @platform-api/spec (`spec/dist/<name>.openapi.json`). */
export function loadBundle(name: BundleName): OpenApiDocument {
  const file = require.resolve(`@platform-api/spec/${name}.openapi.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
}
