// The one reader of ../redocly.yaml, the list of APIs: the spec's bundler and the client's type
// generator both take it from here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const redoclyConfigPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'redocly.yaml');

/** The parsed configuration. */
export function readRedoclyConfig() {
  return parse(readFileSync(redoclyConfigPath, 'utf8'));
}

/** Every API of the configuration: its alias (`platform@v1`), bundle name (`platform`) and settings. */
export function redoclyApis() {
  return Object.entries(readRedoclyConfig().apis ?? {}).map(([alias, settings]) => ({
    alias,
    name: alias.split('@')[0],
    settings: settings ?? {},
  }));
}
