// Bundles every API listed in ../redocly.yaml into dist/<name>.openapi.{yaml,json}.
// The name is the API alias without its version (platform@v1 -> platform).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redoclyApis, redoclyConfigPath } from './redocly-config.mjs';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const redocly = join(specDir, 'node_modules', '.bin', 'redocly');

mkdirSync(join(specDir, 'dist'), { recursive: true });
for (const { alias, name } of redoclyApis()) {
  for (const ext of ['yaml', 'json']) {
    execFileSync(
      redocly,
      [
        'bundle',
        alias,
        '--config',
        redoclyConfigPath,
        '--output',
        join(specDir, 'dist', `${name}.openapi.${ext}`),
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        cwd: specDir,
      },
    );
  }
  console.log(`bundled ${alias} -> dist/${name}.openapi.{yaml,json}`);
}
